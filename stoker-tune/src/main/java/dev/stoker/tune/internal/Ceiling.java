package dev.stoker.tune.internal;

import java.util.Objects;

/**
 * A throughput no config of the search can pass, measured outside it, drawn in the report as a dashed line
 * so that the distance left to gain is seen beside the trials: the headspace ceiling (how fast the training
 * step alone consumes cached batches) or the machine's decode ceiling (every core decoding the same clips
 * at once, with no pipeline around them). A start config already near a ceiling leaves the search little to
 * find; a search that stops short of it has a bottleneck left that is not the CPU.
 *
 * @param name             what it is, in a few words ("headspace ceiling", "decode ceiling")
 * @param samplesPerSecond its value
 * @param how              how it was measured, in words, for the report
 */
public record Ceiling(String name, double samplesPerSecond, String how) {
    public Ceiling {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(how, "how");
        if (!(samplesPerSecond > 0) || Double.isInfinite(samplesPerSecond)) {
            throw new IllegalArgumentException("samplesPerSecond: " + samplesPerSecond + " (expected: a positive number)");
        }
    }

    /** {@code samplesPerSecond} as a share of this ceiling (0.95: 5% short of it). */
    public double shareOf(double samplesPerSecond) {
        return samplesPerSecond / this.samplesPerSecond;
    }
}
