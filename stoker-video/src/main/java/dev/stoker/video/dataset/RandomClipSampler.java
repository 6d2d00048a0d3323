package dev.stoker.video.dataset;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Seeded random starts; a pure function of (seed, epoch, video index), so runs repeat and resume. */
record RandomClipSampler(int clipsPerVideo, long seed) implements ClipSampler {

    RandomClipSampler {
        if (clipsPerVideo < 1) {
            throw new IllegalArgumentException("clipsPerVideo: " + clipsPerVideo + " (expected: 1+)");
        }
    }

    @Override
    public double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex) {
        double last = ClipSampler.lastStart(videoSeconds, clipSeconds);
        // A fresh generator per video, not one shared stream: the result must not depend on which
        // videos were visited before (shuffling, sharding across workers, resuming mid-epoch).
        SplittableRandom random = new SplittableRandom(mix(mix(seed, epoch), videoIndex));
        double[] starts = new double[clipsPerVideo];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = last == 0 ? 0 : random.nextDouble() * last;
        }
        Arrays.sort(starts);
        return starts;
    }

    /** SplitMix64 finaliser over (a, b): neighbouring epochs and indices get unrelated seeds. */
    static long mix(long a, long b) {
        long z = a + 0x9E3779B97F4A7C15L * (b + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
