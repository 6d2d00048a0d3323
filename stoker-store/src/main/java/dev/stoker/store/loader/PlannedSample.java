package dev.stoker.store.loader;

/** A sample with its clip starts chosen (those after {@code firstClip}). */
record PlannedSample(SampleTask task, double[] clipStarts) {
    @Override
    public String toString() {
        return task.toString();
    }
}
