package dev.stoker.video.loader;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchMemory;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SamplerState;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Turns a dataset of videos into batches of clips: the pipeline
 * <pre>
 *   source (seeded epoch order) → fetch → demux → decode → convert → batch → collate → sink
 * </pre>
 * where fetch reads the file into memory (virtual threads), demux indexes its packets and samples clip
 * starts, decode decodes each video's clips frame-exactly (skipping frames nothing needs), convert
 * scales and crops them to RGB24 into pooled buffers, and collate packs N clips into one pooled
 * off-heap {@link ClipBatch}. With {@link LoaderOptions#fusedConvert()} decode converts as it goes
 * and there is no convert stage (less memory in flight, one less hand-off). Every stage's concurrency and
 * queue are knobs of {@link LoaderOptions#config()}.
 *
 * <pre>{@code
 * try (VideoLoader loader = VideoLoader.open(Dataset.open(root), LoaderOptions.defaults())) {
 *     for (ClipBatch batch : loader) {
 *         try (batch) { train(batch.data(), batch.shape(), batch.labels()); }
 *     }
 * }
 * }</pre>
 * Close every batch: its buffer goes back to the pool, which is sized for the sink plus a few.
 *
 * <p>With {@link LoaderOptions#splitAfter()} ({@code "fetch"} or {@code "demux"}) the stages up to that one
 * run in a child JVM, so that a native crash on a bad file restarts the child instead of ending training;
 * they show in the stats as {@code child:fetch}, {@code child:demux}.
 */
public final class VideoLoader implements Iterable<ClipBatch>, AutoCloseable {
    /** Stage names, in order. */
    public static final List<String> STAGES = List.of("fetch", "demux", "decode", "convert", "batch", "collate");

    private final Pipeline<ClipBatch> pipeline;
    private final DecodeStage decode;
    private final ConvertStage convert;
    private final BatchPool clipBuffers;
    private final BatchPool batches;
    private final ResumeTracker resume;

    private VideoLoader(Pipeline<ClipBatch> pipeline, DecodeStage decode, ConvertStage convert, BatchPool clipBuffers,
                        BatchPool batches, ResumeTracker resume) {
        this.pipeline = pipeline;
        this.resume = resume;
        this.decode = decode;
        this.convert = convert;
        this.clipBuffers = clipBuffers;
        this.batches = batches;
    }

    /**
     * The default knobs for a machine with {@code cores} cores. Stages keep input order, so batches
     * come in the sampler's known order (reproducible runs, exact resume); the reorder window lets the
     * workers run ahead of a slow item meanwhile.
     */
    public static PipelineConfig defaultConfig(int cores) {
        return new PipelineConfig(4, null, null, Map.of(
                "fetch", new StageConfig(4, null, Order.INPUT, true, null, null),
                "demux", new StageConfig(1, null, Order.INPUT, null, null, null),
                "decode", new StageConfig(Math.max(1, cores), null, Order.INPUT, null, null, null),
                "convert", new StageConfig(1, null, Order.INPUT, null, null, null),
                "collate", new StageConfig(1, null, Order.INPUT, null, null, null)));
    }

    public static VideoLoader open(Dataset dataset, LoaderOptions options) {
        return open(dataset, options, null);
    }

    /** Opens the loader and starts loading; {@code trace} (nullable) records every task. */
    public static VideoLoader open(Dataset dataset, LoaderOptions options, TraceRecorder trace) {
        return open(dataset, options, trace, BatchMemory.offHeap());
    }

    /**
     * Opens the loader with batch buffers from {@code batchMemory} (pinned host memory, so that a GPU
     * transfer stage can copy the batches collate writes without a staging copy); the loader owns it.
     */
    public static VideoLoader open(Dataset dataset, LoaderOptions options, TraceRecorder trace, BatchMemory batchMemory) {
        EpochSampler sampler = EpochSampler.create(EpochOrder.groups(dataset), options.seed(), options.shuffle(),
                options.sampler());
        return open(dataset, options, trace, sampler, sampler.start(), batchMemory);
    }

    /**
     * Opens a loader that continues where the one that gave {@code state} ({@link #state()}) stood: it
     * delivers exactly the clips, clip times and crops the uninterrupted loader would have delivered next,
     * in the same batches. {@code options} must be the original ones (the sampling settings are checked);
     * {@link LoaderOptions#epochs()} still counts from epoch 0.
     *
     * @throws IllegalArgumentException if the dataset's fingerprint or the sampling settings differ from
     *         the state's
     */
    public static VideoLoader resume(Dataset dataset, LoaderOptions options, SamplerState state) {
        return resume(dataset, options, state, null);
    }

    /** {@link #resume(Dataset, LoaderOptions, SamplerState)} with a trace recorder (nullable). */
    public static VideoLoader resume(Dataset dataset, LoaderOptions options, SamplerState state, TraceRecorder trace) {
        EpochSampler.requireSameSettings(state, options.seed(), options.shuffle(), options.sampler());
        EpochSampler sampler = EpochSampler.resume(EpochOrder.groups(dataset), state);
        return open(dataset, options, trace, sampler, state, BatchMemory.offHeap());
    }

    private static VideoLoader open(Dataset dataset, LoaderOptions options, TraceRecorder trace, EpochSampler sampler,
                                    SamplerState start, BatchMemory batchMemory) {
        ResumeTracker resume = new ResumeTracker(sampler, start);
        PipelineConfig config = defaultConfig(Runtime.getRuntime().availableProcessors()).overriddenBy(options.config());
        BatchShape clipShape = new BatchShape(1, options.frames(), options.height(), options.width(), 3, BatchLayout.NTHWC);
        BatchShape batchShape = new BatchShape(options.batchSize(), options.frames(), options.height(), options.width(),
                3, options.layout());

        // Size the clip pool for every clip the stages between decode and collate can hold at once, so a
        // full pipeline never waits on itself: decode in flight, the batch stage's queue and partial batch,
        // collate's queue and in-flight batches.
        if (options.fusedConvert()) {
            config = withoutStage(config, "convert");
        }
        PipelineBuilder<ClipBatch> probe = describe(dataset, options, null, null, null, resume);
        PipelineConfig effective = probe.config(config).effectiveConfig();
        int convertHolds = options.fusedConvert() ? 0
                : effective.stage("convert").concurrency() + effective.stage("convert").queueCapacity();
        StageConfig dec = effective.stage("decode");
        StageConfig bat = effective.stage("batch");
        StageConfig col = effective.stage("collate");
        long clipsHeld = (long) (dec.concurrency() + convertHolds)
                * Math.max(options.clipsPerVideo(), 8)
                + bat.queueCapacity() + options.batchSize()
                + (long) (col.queueCapacity() + col.concurrency()) * options.batchSize() + 4;
        BatchPool clipBuffers = new BatchPool(clipShape, clipsHeld * clipShape.batchBytes());
        long batchBudget = options.batchBudgetBytes() > 0 ? options.batchBudgetBytes()
                : (effective.sinkCapacity() + col.concurrency() + 2L) * batchShape.batchBytes();
        BatchPool batches = new BatchPool(batchShape, batchBudget, batchMemory);
        DecodeStage decode = new DecodeStage(options, clipBuffers);
        ConvertStage convert = new ConvertStage();
        try {
            PipelineBuilder<ClipBatch> builder = describe(dataset, options, decode, convert, batches, resume).config(config);
            if (trace != null) {
                builder = builder.trace(trace);
            }
            return new VideoLoader(builder.build(), decode, convert, clipBuffers, batches, resume);
        } catch (RuntimeException e) {
            decode.close();
            convert.close();
            clipBuffers.close();
            batches.close();
            throw e;
        }
    }

    private static PipelineConfig withoutStage(PipelineConfig config, String stage) {
        Map<String, StageConfig> stages = new java.util.LinkedHashMap<>(config.stages());
        stages.remove(stage);
        return new PipelineConfig(config.sinkCapacity(), config.failureBudget(), config.stallTimeoutMillis(), stages);
    }

    private static PipelineBuilder<ClipBatch> describe(Dataset dataset, LoaderOptions options, DecodeStage decode,
                                                       ConvertStage convert, BatchPool batches, ResumeTracker resume) {
        FailureBudget budget = options.failureBudget();
        CollateStage collate = new CollateStage(batches, (batch, last) -> resume.collated(batch, last.task().epoch(),
                last.task().position(), last.clip(), last.clipsOfVideo()));
        PipelineBuilder<FetchedVideo> fetched = Pipeline.fromEpochs(new EpochOrder(dataset, resume.sampler(), resume.start(),
                        options.epochs()))
                .map("fetch", FetchFactory.class, FetchFactory.config(options), s -> s.failureBudget(budget));
        if ("fetch".equals(options.splitAfter())) {
            fetched = fetched.isolate(childJvm(new LoaderCodecs.FetchedVideoCodec()));
        }
        PipelineBuilder<OpenedVideo> demuxed = fetched.map("demux", DemuxFactory.class, DemuxFactory.config(options),
                s -> s.failureBudget(budget));
        if ("demux".equals(options.splitAfter())) {
            demuxed = demuxed.isolate(childJvm(new LoaderCodecs.OpenedVideoCodec()));
        }
        PipelineBuilder<LoadedClip> clips = options.fusedConvert()
                ? demuxed.flatMap("decode", opened -> decode.decodeAndConvert(opened), s -> s.failureBudget(budget))
                : demuxed.map("decode", opened -> decode.decode(opened), s -> s.failureBudget(budget))
                        .flatMap("convert", decoded -> convert.apply(decoded), s -> s.failureBudget(budget));
        return clips.batch("batch", options.batchSize(), options.dropLast())
                .map("collate", collate, s -> s.failureBudget(budget));
    }

    /**
     * The child JVM that runs the stages up to {@link LoaderOptions#splitAfter()}: the source's tasks go in,
     * {@code outputs} come back (crashes, restarts and stats as {@link SubprocessOptions} describes).
     */
    private static SubprocessOptions childJvm(ItemCodec<?> outputs) {
        return SubprocessOptions.defaults().withCodecs(new LoaderCodecs.VideoTaskCodec(), outputs);
    }

    /** Batches of every epoch. Close each batch when done with it. */
    @Override
    public Iterator<ClipBatch> iterator() {
        return resume.tracking(pipeline.iterator());
    }

    /** Batches of the next epoch only. */
    public Iterable<ClipBatch> nextEpoch() {
        Iterable<ClipBatch> epoch = pipeline.nextEpoch();
        return () -> resume.tracking(epoch.iterator());
    }

    /**
     * Where the consumer stands: the state after the last batch handed out (the start state before the
     * first). Save it with a checkpoint; {@link #resume} continues from it. Cheap; any thread.
     */
    public SamplerState state() {
        return resume.state();
    }

    /** The sampler behind the epoch order (its sequence is known ahead: for prefetching, for reports). */
    public EpochSampler sampler() {
        return resume.sampler();
    }

    /** The running pipeline: stats, failures, effective config. */
    public Pipeline<ClipBatch> pipeline() {
        return pipeline;
    }

    /** Clips decoded so far. */
    public long decodedClips() {
        return decode.clips.sum();
    }

    /** Frames the decoder produced so far, output or not: divided by clips, the cost of a clip. */
    public long decodedFrames() {
        return decode.decodedFrames.sum();
    }

    /** The batch buffer pool (for its counters). */
    public BatchPool batchPool() {
        return batches;
    }

    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            // A worker that ignored interruption may still be inside FFmpeg: freeing its decoder or the
            // buffers under it would crash the JVM, so leak them instead (close() has logged the thread).
            if (pipeline.liveThreads().isEmpty()) {
                decode.close();
                convert.close();
                clipBuffers.close();
                batches.close();
            }
        }
    }

}
