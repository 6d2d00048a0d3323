package dev.stoker.pipeline;

/**
 * A continuous source in epochs: the items of epoch 0, then of epoch 1, and so on, with the boundary
 * visible to the consumer ({@link Pipeline#nextEpoch()}). Return {@code null} to end the stream.
 * A seeded sampler is the typical implementation: the order of every epoch is known ahead.
 */
@FunctionalInterface
public interface EpochSource<S> {
    Iterable<? extends S> epoch(int epoch);
}
