package dev.stoker.loader.dataset;

/** All windows at a fixed step; the count grows with the video. */
record WindowClipSampler(double stepSeconds) implements ClipSampler {

    /** Tolerance for durations that land a hair under a whole number of steps (29.999999 s of 30 fps). */
    private static final double EPSILON_SECONDS = 1e-6;

    WindowClipSampler {
        if (!(stepSeconds > 0) || Double.isInfinite(stepSeconds)) {
            throw new IllegalArgumentException("stepSeconds: " + stepSeconds + " (expected: > 0)");
        }
    }

    @Override
    public double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex) {
        double last = ClipSampler.lastStart(videoSeconds, clipSeconds);
        long count = (long) Math.floor(last / stepSeconds + EPSILON_SECONDS) + 1;
        if (count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("stepSeconds: " + stepSeconds + " gives " + count
                    + " windows over " + videoSeconds + " s (expected: fewer than 2^31)");
        }
        double[] starts = new double[(int) count];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = Math.min(i * stepSeconds, last);
        }
        return starts;
    }
}
