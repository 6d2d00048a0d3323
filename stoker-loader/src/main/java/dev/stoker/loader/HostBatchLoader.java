package dev.stoker.loader;

import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Pipeline;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loader whose pipeline ends in pooled host-memory {@link ClipBatch}es ({@code VideoLoader}, the shard
 * loader): it hands them out in the pipeline's order, and the {@link ResumeTracker} that collate tells of
 * every batch moves the resume state forward as each one is handed out. It owns the two pools the
 * pipeline decodes and collates into, and frees them on {@link #close()} once no worker is left in them.
 */
public abstract class HostBatchLoader implements ClipLoader<ClipBatch> {
    private final Pipeline<ClipBatch> pipeline;
    private final ResumeTracker resume;
    private final BatchPool clipBuffers;
    private final BatchPool batches;
    private final ClipStartCounter starts;
    private final List<AutoCloseable> closedAfter = new CopyOnWriteArrayList<>();

    protected HostBatchLoader(Pipeline<ClipBatch> pipeline, ResumeTracker resume, BatchPool clipBuffers,
                              BatchPool batches) {
        this(pipeline, resume, clipBuffers, batches, -1);
    }

    /** {@code maxLeadFrames}: the decode budget the clips were sampled under (-1: none), for {@link #startStats()}. */
    protected HostBatchLoader(Pipeline<ClipBatch> pipeline, ResumeTracker resume, BatchPool clipBuffers,
                              BatchPool batches, int maxLeadFrames) {
        this.pipeline = pipeline;
        this.resume = resume;
        this.clipBuffers = clipBuffers;
        this.batches = batches;
        this.starts = new ClipStartCounter(maxLeadFrames);
    }

    /**
     * Batches of every epoch. Close each batch when done with it: the pool holds the batches the consumer was sized
     * to hold ({@link Opening#consumerHolding}), and one that holds them all stalls the loader (the stall report
     * says so).
     */
    @Override
    public final Iterator<ClipBatch> iterator() {
        return handingOut(pipeline.iterator());
    }

    /** Batches of the next epoch only. */
    @Override
    public final Iterable<ClipBatch> nextEpoch() {
        Iterable<ClipBatch> epoch = pipeline.nextEpoch();
        return () -> handingOut(epoch.iterator());
    }

    /**
     * The pipeline's batches as the consumer gets them: the resume state and the clip starts move, and the pool
     * marks each as the consumer's ({@link BatchPool#handOut}: held by it until closed; where a leak was).
     */
    private Iterator<ClipBatch> handingOut(Iterator<ClipBatch> batchesOut) {
        return new OnEachHandedOut<>(starts.counting(resume.tracking(batchesOut)), batches::handOut);
    }

    /**
     * Where the consumer stands: the state after the last batch handed out (the start state before the
     * first). Save it with a checkpoint; a loader opened {@link Opening#resumingFrom} it continues from it. Cheap; any thread.
     */
    @Override
    public final SamplerState state() { return resume.state(); }

    @Override
    public final EpochSampler sampler() { return resume.sampler(); }

    @Override
    public final Pipeline<ClipBatch> pipeline() { return pipeline; }

    /** The decode leads of the clips handed out so far, and those over the decode budget. */
    @Override
    public final ClipStartStats startStats() { return starts.stats(); }

    /**
     * Closes {@code resource} after this loader, once its pools are freed (or leaked, see {@link #close()}): what the
     * loader was opened on for it alone, such as the shard dataset a {@link LoaderProvider} opened. Resources close
     * in the order given.
     */
    public final void closeAfter(AutoCloseable resource) {
        closedAfter.add(resource);
    }

    /** The batch buffer pool (for its counters). */
    public final BatchPool batchPool() { return batches; }

    /**
     * Closes the pipeline, then frees the decoders ({@link #freeWorkers}) and both pools (a batch the consumer still
     * holds reads as closed from then on: {@link ClipBatch}), unless a worker that
     * ignored interruption may still be inside FFmpeg: freeing what it uses would crash the JVM, so they are
     * leaked instead (the pipeline's close has logged the thread).
     */
    @Override
    public final void close() {
        try {
            pipeline.close();
        } finally {
            try {
                pipelineClosed();
                if (pipeline.liveThreads().isEmpty()) {
                    freeWorkers();
                    clipBuffers.close();
                    batches.close();
                }
            } finally {
                closeAll(closedAfter);
            }
        }
    }

    private static void closeAll(List<AutoCloseable> resources) {
        RuntimeException first = null;
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                RuntimeException failed = e instanceof RuntimeException re ? re : new IllegalStateException(e);
                if (first == null) {
                    first = failed;
                } else {
                    first.addSuppressed(failed);
                }
            }
        }
        resources.clear();
        if (first != null) {
            throw first;
        }
    }

    /** Right after the pipeline closed, whether or not a worker is still alive. */
    protected void pipelineClosed() {
    }

    /** Frees what the workers decoded with; called only when none is left. */
    protected abstract void freeWorkers();
}
