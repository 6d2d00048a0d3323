package dev.stoker.loader.dataset.internal;

/**
 * One element of a rank's epoch sequence: which sample to load, where it sits, and the seed for the
 * random draws made for it (clip starts, crops, flips). Everything here is a pure function of the
 * sampler's inputs, so a resumed run draws exactly what the uninterrupted one would have.
 *
 * @param sampleIndex the sample's index in the dataset
 * @param epoch       the epoch
 * @param position    its position in this rank's sequence for the epoch, {@code 0..samplesPerEpoch-1}
 * @param drawSeed    seed for this draw's randomness: a function of (seed, epoch, sample, pass), where the
 *                    pass is 0 except for a sample repeated to pad the epoch; independent of rank and
 *                    world size
 */
public record SampleDraw(int sampleIndex, int epoch, int position, long drawSeed) {

    /** An independent seed for the {@code stream}-th kind of draw (0: clip starts, 1: crops, …). */
    public long seed(int stream) {
        return SplitMix.mix(drawSeed, stream);
    }
}
