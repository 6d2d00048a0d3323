package dev.stoker.loader.dataset;

/** One clip a video, always at the same time: a clip window ({@code --clip-window}) says where. */
record FixedClipSampler(double startSeconds) implements ClipSampler {

    FixedClipSampler {
        if (!(startSeconds >= 0) || Double.isInfinite(startSeconds)) {
            throw new IllegalArgumentException("startSeconds: " + startSeconds + " (expected: finite, 0+)");
        }
    }

    @Override
    public double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex) {
        ClipSampler.lastStart(videoSeconds, clipSeconds);   // checks them
        return new double[] {startSeconds};
    }
}
