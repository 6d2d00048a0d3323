package dev.stoker.loader.dataset;

import dev.stoker.loader.dataset.internal.SplitMix;
import java.util.Arrays;
import java.util.SplittableRandom;

/** Seeded random starts; a pure function of (seed, epoch, video index), so runs repeat and resume. */
record RandomClipSampler(int clipsPerVideo, long seed) implements ClipSampler {

    @Override
    public double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex) {
        double last = ClipSampler.lastStart(videoSeconds, clipSeconds);
        // A fresh generator per video, not one shared stream: the result must not depend on which
        // videos were visited before (shuffling, sharding across workers, resuming mid-epoch).
        SplittableRandom random = new SplittableRandom(SplitMix.mix(SplitMix.mix(seed, epoch), videoIndex));
        double[] starts = new double[clipsPerVideo];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = last == 0 ? 0 : random.nextDouble() * last;
        }
        Arrays.sort(starts);
        return starts;
    }

}
