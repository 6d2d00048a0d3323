package dev.stoker.loader.dataset;

import dev.stoker.pipeline.InvalidValueException;
import java.util.Objects;

/**
 * How an {@link EpochSampler} lays an epoch out beyond the seed and shuffle switch: the shuffle window
 * (locality) and the split across data-parallel ranks.
 *
 * @param windowGroups samples are shuffled within windows of this many consecutive groups (shards, files)
 *                     of the shuffled group order, so that a stretch of the epoch reads few shards at a time;
 *                     {@code 0} shuffles across all groups (a full shuffle)
 * @param rank         this process's rank, {@code 0..worldSize-1}
 * @param worldSize    ranks that split each epoch; every rank gets the same count
 * @param tail         what happens to the samples that do not divide evenly across ranks
 */
public record SamplerOptions(int windowGroups, int rank, int worldSize, Tail tail) {

    /** The remainder when the epoch does not divide by {@code worldSize}. */
    public enum Tail {
        /** Drop the last {@code samples mod worldSize} samples of the shuffled epoch. */
        DROP,
        /** Pad up to a multiple of {@code worldSize} by repeating samples from the start of the shuffled epoch. */
        PAD
    }

    public SamplerOptions {
        if (windowGroups < 0) {
            throw new InvalidValueException("windowGroups", windowGroups, "0 for all groups, or 1+");
        }
        if (worldSize < 1) {
            throw new InvalidValueException("worldSize", worldSize, "1+");
        }
        if (rank < 0 || rank >= worldSize) {
            throw new InvalidValueException("rank", rank, "0.." + (worldSize - 1) + " for worldSize " + worldSize);
        }
        Objects.requireNonNull(tail, "tail");
    }

    /** A full shuffle on a single rank, padding the tail. */
    public static SamplerOptions defaults() {
        return new SamplerOptions(0, 0, 1, Tail.PAD);
    }

    public SamplerOptions withWindow(int windowGroups) {
        return new SamplerOptions(windowGroups, rank, worldSize, tail);
    }

    public SamplerOptions withRank(int rank, int worldSize) {
        return new SamplerOptions(windowGroups, rank, worldSize, tail);
    }

    public SamplerOptions withTail(Tail tail) {
        return new SamplerOptions(windowGroups, rank, worldSize, tail);
    }
}
