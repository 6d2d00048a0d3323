package dev.stoker.video.loader;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SamplerState;

/**
 * A running loader as its consumer and its reports see it, whatever it decodes from and wherever its batches
 * are: {@link VideoLoader} and the shard loader ({@code ClipBatch}es in host memory), the NVDEC loader (device
 * batches). Batches come in the sampler's known order; {@link #state()} says where the consumer stands.
 */
public interface ClipLoader<B> extends Iterable<B>, AutoCloseable {
    /** The state after the last batch handed out (the start state before the first), to resume from. */
    SamplerState state();

    /** The sampler behind the epoch order (its sequence is known ahead: for prefetching, for reports). */
    EpochSampler sampler();

    /** The running pipeline: stats, failures, effective config. */
    Pipeline<?> pipeline();

    /** Clips decoded (or read) so far. */
    long decodedClips();

    /** Frames decoded (or copied) so far, output or not: divided by clips, the cost of a clip. */
    long decodedFrames();

    /** Stops every stage and frees what the loader holds. */
    @Override
    void close();
}
