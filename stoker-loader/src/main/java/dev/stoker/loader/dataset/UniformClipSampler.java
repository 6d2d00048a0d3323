package dev.stoker.loader.dataset;

/** Evenly spaced starts covering the whole video, first clip at 0 and last ending at the end. */
record UniformClipSampler(int clipsPerVideo) implements ClipSampler {

    @Override
    public double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex) {
        double last = ClipSampler.lastStart(videoSeconds, clipSeconds);
        double[] starts = new double[clipsPerVideo];
        if (clipsPerVideo == 1) {
            starts[0] = last / 2;
            return starts;
        }
        for (int i = 0; i < starts.length; i++) {
            starts[i] = last * i / (clipsPerVideo - 1);
        }
        return starts;
    }
}
