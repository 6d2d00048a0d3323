package dev.stoker.video.loader;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SamplerState;
import java.util.Iterator;

/**
 * A loader whose pipeline ends in pooled host-memory {@link ClipBatch}es ({@link VideoLoader}, the shard
 * loader): it hands them out in the pipeline's order, and the {@link ResumeTracker} that collate tells of
 * every batch moves the resume state forward as each one is handed out.
 */
public abstract class HostBatchLoader implements ClipLoader<ClipBatch> {
    private final Pipeline<ClipBatch> pipeline;
    private final ResumeTracker resume;

    protected HostBatchLoader(Pipeline<ClipBatch> pipeline, ResumeTracker resume) {
        this.pipeline = pipeline;
        this.resume = resume;
    }

    /** Batches of every epoch. Close each batch when done with it. */
    @Override
    public final Iterator<ClipBatch> iterator() {
        return resume.tracking(pipeline.iterator());
    }

    /** Batches of the next epoch only. */
    @Override
    public final Iterable<ClipBatch> nextEpoch() {
        Iterable<ClipBatch> epoch = pipeline.nextEpoch();
        return () -> resume.tracking(epoch.iterator());
    }

    /**
     * Where the consumer stands: the state after the last batch handed out (the start state before the
     * first). Save it with a checkpoint; the loader's {@code resume} continues from it. Cheap; any thread.
     */
    @Override
    public final SamplerState state() {
        return resume.state();
    }

    @Override
    public final EpochSampler sampler() {
        return resume.sampler();
    }

    @Override
    public final Pipeline<ClipBatch> pipeline() {
        return pipeline;
    }
}
