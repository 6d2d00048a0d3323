package dev.stoker.store.loader;

/**
 * A sample with its clip starts chosen (those after {@code firstClip}), and each start's decode lead in the source
 * video (-1 when not known).
 */
record PlannedSample(SampleTask task, double[] clipStarts, int[] leadFrames) {
    @Override
    public String toString() { return task.toString(); }
}
