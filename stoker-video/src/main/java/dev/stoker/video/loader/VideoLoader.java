package dev.stoker.video.loader;

import dev.stoker.loader.CollateStage;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.Opening;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.DatasetChangedException;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import dev.stoker.video.internal.FrameFolder;
import dev.stoker.video.loader.internal.CollateFactory;
import dev.stoker.video.loader.internal.CollatedBatchCodec;
import dev.stoker.video.loader.internal.ConvertFactory;
import dev.stoker.video.loader.internal.ConvertStage;
import dev.stoker.video.loader.internal.DecodeConvertFactory;
import dev.stoker.video.loader.internal.DecodeFactory;
import dev.stoker.video.loader.internal.DecodeStage;
import dev.stoker.video.loader.internal.DecodedVideo;
import dev.stoker.video.loader.internal.FetchedVideo;
import dev.stoker.video.loader.internal.LoadedClip;
import dev.stoker.video.loader.internal.LoadedClipCodec;
import dev.stoker.video.loader.internal.LoaderCodecs;
import dev.stoker.video.loader.internal.OpenedVideo;
import dev.stoker.video.loader.internal.OpenedVideoCodec;
import dev.stoker.video.loader.internal.QuarantineGate;
import dev.stoker.video.loader.internal.VideoFront;
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
 * off-heap {@link ClipBatch}. With {@link LoaderOptions.Decode#fusedConvert()} decode converts as it goes
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
 * <p>With {@link LoaderOptions.Placement#splitAfter()} (any stage) the stages up to that one run in a child JVM, so
 * that a native crash on a bad file restarts the child instead of ending training; they show in the stats
 * as {@code child:fetch}, {@code child:demux}, and so on. After {@code collate}, the whole CPU front runs
 * there and only finished batches cross, each copied into a batch of this loader's pool and handed on by a
 * stage {@code deliver}, which notes where it ends in the epoch for {@link #state()}. After {@code decode},
 * decode converts (as {@link LoaderOptions.Decode#fusedConvert()}): the decoder's pictures cannot leave its process.
 */
public final class VideoLoader extends HostBatchLoader {
    private final Parts parts;
    private final Dataset dataset;
    private final LoaderOptions options;
    private final MemoryPlan plan;

    private VideoLoader(Pipeline<ClipBatch> pipeline, Parts parts, ResumeTracker resume, Dataset dataset,
                        LoaderOptions options, MemoryPlan plan) {
        super(pipeline, resume, parts.clipBuffers(), parts.batches(), options.clip().maxLeadFrames());
        this.parts = parts;
        this.dataset = dataset;
        this.options = options;
        this.plan = plan;
    }

    /**
     * The default knobs for a machine with {@code cores} cores. Stages keep input order, so batches
     * come in the sampler's known order (reproducible runs, exact resume); the reorder window lets the
     * workers run ahead of a slow item meanwhile.
     */
    public static PipelineConfig defaultConfig(int cores) {
        return new PipelineConfig(4, null, null, Map.of(
                VideoStage.FETCH.stageName(), new StageConfig(4, null, Order.INPUT, true, null, null),
                VideoStage.DEMUX.stageName(), StageConfig.inInputOrder(1),
                // A deep input queue, for its reorder window (ReorderBuffer.windowFor): with batches in
                // input order, a straggler (an AV1 clip, a seek far past a keyframe) stalls every other
                // decoder once the window behind it is full; eight clips per worker hide a 1 s straggler
                // among 60 ms clips on 2 cores (median +7% samples/s on the demo dataset, docs/benchmarks.md).
                VideoStage.DECODE.stageName(), StageConfig.inInputOrder(Math.max(1, cores))
                        .withQueueCapacity(7 * Math.max(1, cores)),
                VideoStage.CONVERT.stageName(), StageConfig.inInputOrder(1),
                VideoStage.COLLATE.stageName(), StageConfig.inInputOrder(1)));
    }

    /** Opens the loader and starts loading from the start ({@link Opening#defaults()}). */
    public static VideoLoader open(Dataset dataset, LoaderOptions options) {
        return open(dataset, options, Opening.defaults());
    }

    /**
     * Opens the loader as {@code opening} says and starts loading: from the start, or where the loader that gave
     * {@link Opening#resumeFrom()} ({@link #state()}) stood, delivering exactly the clips, clip times and crops the
     * uninterrupted loader would have delivered next, in the same batches ({@code options} must be the original
     * ones; {@link LoaderOptions.Sampling#epochs()} still counts from epoch 0); batch buffers from its memory, which
     * the loader owns (pinned host memory, so that a GPU transfer copies what collate writes without a staging copy).
     *
     * @throws IllegalArgumentException if resuming and the sampling settings differ from the state's
     * @throws DatasetChangedException  if resuming and the dataset's fingerprint differs from the state's
     */
    public static VideoLoader open(Dataset dataset, LoaderOptions options, Opening opening) {
        Quarantine quarantine = Quarantine.of(options);
        SamplerState state = opening.resumeFrom().orElse(null);
        if (state == null) {
            Dataset kept = quarantine.without(dataset);
            return open(kept, options, opening, LoaderFront.start(kept, options), quarantine);
        }
        // The run that gave the state left out the files its quarantine file listed then: a prefix of the file,
        // which only grows. The files listed since are skipped before fetch instead (the same clips arrive).
        for (int listed = quarantine.fromFile(); ; listed--) {
            Dataset kept = quarantine.withoutFirst(dataset, listed);
            try {
                ResumeTracker at = LoaderFront.resume(kept, options, state);
                return open(kept, options, opening, at, quarantine);
            } catch (DatasetChangedException e) {
                if (listed == 0) {
                    throw e;
                }
            }
        }
    }

    /**
     * The videos this loader skips because their failure is a property of the file: those of
     * {@link LoaderOptions#quarantine()} at open (left out of the dataset, so the order is the dataset's without
     * them) and those that failed so since, skipped before fetch from the next time they come up.
     */
    public Quarantine quarantine() { return parts.gate().quarantine(); }

    /** Videos skipped so far because they were quarantined during this run. */
    public long quarantineSkips() { return parts.gate().skipped(); }

    private static VideoLoader open(Dataset dataset, LoaderOptions options, Opening opening, ResumeTracker resume,
                                    Quarantine quarantine) {
        PipelineConfig defaults = defaultConfig(Runtime.getRuntime().availableProcessors());
        PipelineConfig config = defaults.overriddenBy(options.requireStages(List.of(VideoStage.values())).config());
        if (options.decode().fusedConvert()) {
            config = withoutStage(config, VideoStage.CONVERT);
        }
        // Split, the child sizes its pools for the stages it runs (the same plan, from the same options), and
        // this process for the rest and for the outputs the transport decodes ahead.
        MemoryPlan plan = MemoryPlan.of(options, defaults).holdingForConsumer(opening.consumerBatches());
        BatchPool clipBuffers = new BatchPool(options.clipShape(), plan.clipPoolBytes());
        BatchPool batches = new BatchPool(options.batchShape(), plan.batchPoolBytes(), opening.batchMemory());
        DecodeStage decode = new DecodeStage(options, clipBuffers);
        ConvertStage convert = new ConvertStage();
        // The gate holds a file's next video until its last one settled: decode here reports each video's end;
        // decoding in a child, the clips that come back do, unless batches are made there (then quarantine acts
        // on failures as they are reported).
        VideoStage split = options.placement().splitAfter();
        QuarantineGate gate = new QuarantineGate(quarantine, !options.placement().inChild(VideoStage.DECODE)
                ? QuarantineGate.Tracking.LOCAL_DECODE
                : split == VideoStage.DECODE || split == VideoStage.CONVERT ? QuarantineGate.Tracking.CHILD_CLIPS
                : QuarantineGate.Tracking.NONE);
        try {
            Parts parts = new Parts(decode, convert, clipBuffers, batches, gate);
            PipelineBuilder<ClipBatch> builder = describe(dataset, options, parts, resume).config(config);
            Pipeline<ClipBatch> pipeline = opening.trace().map(builder::trace).orElse(builder).build();
            gate.watch(pipeline::failures);
            // Reconfigured while running (an autotuner, say), the stages may hold more clips and batches at
            // once: the pools grow first, so that a full pipeline still never waits on itself.
            pipeline.beforeReconfigure(next -> {
                MemoryPlan grown = plan.with(next);
                clipBuffers.raiseBudget(grown.clipPoolBytes());
                batches.raiseBudget(grown.batchPoolBytes());
            });
            return new VideoLoader(pipeline, parts, resume, dataset, options, plan);
        } catch (RuntimeException e) {
            decode.close();
            convert.close();
            clipBuffers.close();
            batches.close();
            throw e;
        }
    }

    private static PipelineConfig withoutStage(PipelineConfig config, VideoStage stage) {
        Map<String, StageConfig> stages = new java.util.LinkedHashMap<>(config.stages());
        stages.remove(stage.stageName());
        return new PipelineConfig(config.sinkCapacity(), config.failureBudget(), config.stallTimeoutMillis(), stages);
    }

    /** What the stages of this process run with: its decode, convert and pools, and the quarantine's gate. */
    private record Parts(DecodeStage decode, ConvertStage convert, BatchPool clipBuffers, BatchPool batches,
                         QuarantineGate gate) {
    }

    /** Runs the decode of {@code opened} and tells the gate its video settled (decoded or failed). */
    private static <R> R settle(QuarantineGate gate, OpenedVideo opened, java.util.function.Supplier<R> decodeIt) {
        try {
            R result = decodeIt.get();
            gate.settled(opened.task(), null);
            return result;
        } catch (RuntimeException | Error e) {
            gate.settled(opened.task(), e);
            throw e;
        }
    }

    private static PipelineBuilder<ClipBatch> describe(Dataset dataset, LoaderOptions options, Parts parts,
                                                       ResumeTracker resume) {
        FailureBudget budget = options.failureBudget();
        LoaderOptions.Placement placement = options.placement();
        VideoStage split = placement.splitAfter();
        boolean fused = options.decode().fusedConvert();
        DecodeStage decode = parts.decode();
        ConvertStage convert = parts.convert();
        QuarantineGate gate = parts.gate();
        PipelineBuilder<FetchedVideo> fetched = VideoFront.fetched(dataset, options, resume, gate);
        if (split == VideoStage.FETCH) {
            fetched = fetched.isolate(childJvm(new LoaderCodecs.FetchedVideoCodec(), 0));
        }
        PipelineBuilder<OpenedVideo> demuxed = VideoFront.demux(fetched, options);
        if (split == VideoStage.DEMUX) {
            demuxed = demuxed.isolate(childJvm(new OpenedVideoCodec(), 0));
        }
        String decodeConfig = options.toJson();
        String decodeStage = VideoStage.DECODE.stageName();
        String convertStage = VideoStage.CONVERT.stageName();
        PipelineBuilder<LoadedClip> clips;
        if (fused) {
            clips = placement.inChild(VideoStage.DECODE)
                    ? demuxed.<LoadedClip>flatMap(decodeStage, DecodeConvertFactory.class, decodeConfig, s -> s.failureBudget(budget))
                    : demuxed.flatMap(decodeStage, opened -> settle(gate, opened, () -> decode.decodeAndConvert(opened)),
                            s -> s.failureBudget(budget));
        } else {
            PipelineBuilder<DecodedVideo> decoded = placement.inChild(VideoStage.DECODE)
                    ? demuxed.map(decodeStage, DecodeFactory.class, decodeConfig, s -> s.failureBudget(budget))
                    : demuxed.map(decodeStage, opened -> settle(gate, opened, () -> decode.decode(opened)),
                            s -> s.failureBudget(budget));
            clips = placement.inChild(VideoStage.CONVERT)
                    ? decoded.<LoadedClip>flatMap(convertStage, ConvertFactory.class, "", s -> s.failureBudget(budget))
                    : decoded.flatMap(convertStage, d -> convert.apply(d), s -> s.failureBudget(budget));
        }
        if (split == VideoStage.DECODE || split == VideoStage.CONVERT) {
            clips = clips.isolate(childJvm(new LoadedClipCodec(parts.clipBuffers(), gate::clipArrived), 0));
        }
        long clipWireBytes = (long) options.clip().frames() * options.size().height() * options.size().width() * 3
                + ITEM_METADATA_BYTES + longestTextBytes(dataset);
        PipelineBuilder<List<LoadedClip>> batched = clips.batch(VideoStage.BATCH.stageName(), options.batch().size(), options.batch().dropLast());
        if (split == VideoStage.BATCH) {
            batched = batched.isolate(childJvm(ItemCodecs.list(new LoadedClipCodec(parts.clipBuffers())),
                    options.batch().size() * clipWireBytes));
        }
        if (split == VideoStage.COLLATE) {
            // Only finished batches cross; this process copies each into a batch of its own pool and notes
            // where it ends for the resume state (its deliver stage), in order.
            return batched.map(VideoStage.COLLATE.stageName(), CollateFactory.class, options.toJson(),
                            s -> s.failureBudget(budget))
                    .isolate(childJvm(new CollatedBatchCodec(parts.batches()),
                            options.batch().size() * clipWireBytes))
                    .map(VideoStage.DELIVER, collated -> {
                        decode.countDelivered(collated.batch());
                        return collated.handOver(resume);
                    }, s -> s.failureBudget(budget).order(Order.INPUT));
        }
        boolean decodedInChild = placement.inChild(VideoStage.DECODE);
        CollateStage<LoadedClip> collate = new CollateStage<>(parts.batches(), (batch, last) -> {
            if (decodedInChild) {
                decode.countDelivered(batch);
            }
            resume.collated(batch, last.task().epoch(), last.task().position(), last.clip(), last.clipsOfVideo());
        });
        return batched.map(VideoStage.COLLATE.stageName(), collate, s -> s.failureBudget(budget));
    }

    /**
     * Bytes of a clip's metadata on the wire, at most, but for its text (its path, frame times, decoder account), for
     * ring sizing.
     */
    private static final long ITEM_METADATA_BYTES = 16 << 10;

    /** The most bytes a sample's text takes on the wire (UTF-8: at most 3 bytes a UTF-16 unit): a caption rides along. */
    private static long longestTextBytes(Dataset dataset) {
        return 3L * dataset.entries().stream().mapToInt(e -> e.text().map(String::length).orElse(0)).max().orElse(0);
    }

    /**
     * The child JVM that runs the stages up to {@link LoaderOptions.Placement#splitAfter()}: the source's tasks go in,
     * {@code outputs} come back (crashes, restarts and stats as {@link SubprocessOptions} describes). The rings
     * hold at least three of the largest outputs ({@code outputBytes}, 0 when unknown), so that the child can
     * write the next while this process copies one out.
     */
    private static SubprocessOptions childJvm(ItemCodec<?> outputs, long outputBytes) {
        SubprocessOptions child = SubprocessOptions.defaults().withCodecs(new LoaderCodecs.VideoTaskCodec(), outputs);
        return 3 * outputBytes > SubprocessOptions.DEFAULT_RING_BYTES ? child.ringBytes(3 * outputBytes) : child;
    }

    /** Every {@link VideoStage} but convert when decode converts ({@link LoaderOptions.Decode#fusedConvert()}). */
    @Override
    public List<VideoStage> stages() {
        return List.of(VideoStage.values()).stream()
                .filter(s -> s != VideoStage.CONVERT || !options.decode().fusedConvert()).toList();
    }

    @Override
    public List<String> classNames() { return dataset.classNames(); }

    /** Clips decoded so far. */
    @Override
    public long decodedClips() { return parts.decode().clips.sum(); }

    /** Frames the decoder produced so far, output or not: divided by clips, the cost of a clip. */
    @Override
    public long decodedFrames() { return parts.decode().decodedFrames.sum(); }

    /**
     * Estimated bytes one item holds at each stage's input, and at the sink ({@link MemoryPlan#itemBytesByStage},
     * with the mean size of up to 64 of the dataset's files), for a RAM budget over the stages' workers and queues.
     */
    public Map<String, Long> itemBytesByStage() {
        return plan.itemBytesByStage(meanFileBytes());
    }

    /** The memory plan the pools were sized by, for the stage settings the loader started with. */
    public MemoryPlan memoryPlan() { return plan; }

    private long meanFileBytes() {
        long total = 0;
        int counted = 0;
        for (int i = 0; i < dataset.size() && counted < 64; i++) {
            try {
                java.nio.file.Path path = dataset.get(i).path();
                if (java.nio.file.Files.isDirectory(path)) {
                    // A folder of frames: its fetch holds the frames its clips show, about one frame's size each.
                    FrameFolder folder = FrameFolder.list(path);
                    total += java.nio.file.Files.size(folder.frame(0))
                            * Math.min(folder.frameCount(), (long) options.clip().frames() * options.clipsPerVideo());
                } else {
                    long size = FileStamp.of(path).sizeBytes(); // a tar archive's member too
                    if (size < 0) {
                        continue; // missing: a failure the fetch stage reports; it holds nothing
                    }
                    total += size;
                }
                counted++;
            } catch (java.io.IOException | RuntimeException e) {
                // a missing file is a failure the fetch stage reports; it holds nothing
            }
        }
        return counted == 0 ? 0 : total / counted;
    }

    @Override
    protected void freeWorkers() {
        parts.decode().close();
        parts.convert().close();
    }

}
