package dev.stoker.loader;

import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import java.util.Iterator;
import java.util.List;

/**
 * The one contract of every loader, whatever it decodes from and wherever its batches are: {@code VideoLoader}
 * and the shard loader ({@code ClipBatch}es in host memory), the GPU loaders (device batches). A benchmark, the
 * headspace analysis, the autotuner and the framework bridges take any {@code ClipLoader}.
 *
 * <p>Lifecycle: a loader starts loading when opened (each has a static {@code open(dataset, options, opening)}, or
 * {@link Loaders#open} picks it for a location; an {@link Opening} resumes from a {@link #state()}); batches come
 * in the sampler's known order, every epoch through
 * {@link #iterator()} or one epoch at a time through {@link #nextEpoch()} (one or the other); every batch is
 * closed by its consumer; {@link #close()} stops every thread and process the loader started and frees what it
 * holds. A sample that fails is counted, reported ({@link #failures()}: path, stage, reason) and skipped, until
 * {@link LoaderOptions#failureBudget()} is exceeded: then iteration ends with a {@code PipelineFailedException}.
 *
 * @param <B> the batch type
 */
public interface ClipLoader<B extends LoadedBatch> extends Iterable<B>, AutoCloseable {

    /** Batches of every epoch, in the sampler's order. One iteration per loader. Close each batch. */
    @Override
    Iterator<B> iterator();

    /** Batches of the next epoch only; call again for the one after. */
    Iterable<B> nextEpoch();

    /**
     * The state after the last batch handed out (the start state before the first), to resume from: save it with
     * a checkpoint; a loader opened {@link Opening#resumingFrom} it delivers exactly the batches the uninterrupted loader would have
     * delivered next. Cheap; any thread.
     */
    SamplerState state();

    /** Its pipeline's stages, in order: the typed set of its kind ({@link VideoStage}, ...), those it runs. */
    List<? extends LoaderStage> stages();

    /** The names of the classes, indexed by the batches' labels (a dataset's folders, a manifest's labels). */
    List<String> classNames();

    /** The sampler behind the epoch order (its sequence is known ahead: for prefetching, for reports). */
    EpochSampler sampler();

    /** The running pipeline: its effective config, live reconfiguration, the trace. */
    Pipeline<?> pipeline();

    /** Per-stage counters: items, busy, idle and blocked time, queue occupancy. */
    default PipelineStats stats() {
        return pipeline().stats();
    }

    /** Samples that failed so far, each with its path, stage and reason. */
    default List<Failure> failures() {
        return pipeline().failures();
    }

    /** Clips decoded (or read) so far. */
    long decodedClips();

    /** Frames decoded (or copied) so far, output or not: divided by clips, the cost of a clip. */
    long decodedFrames();

    /**
     * The decode leads of the clips handed out so far and those over the decode budget
     * ({@link LoaderOptions.Clip#maxLeadFrames()}); {@link ClipStartStats#NONE} from a loader that does not count them.
     */
    default ClipStartStats startStats() { return ClipStartStats.NONE; }

    /** Stops every stage (and child process) and frees what the loader holds. */
    @Override
    void close();
}
