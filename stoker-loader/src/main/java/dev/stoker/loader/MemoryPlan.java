package dev.stoker.loader;

import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How much memory a loader's pools may hold, derived once from its options and stage settings, the same way
 * for every loader (video files, shards, NVDEC) and for the autotuner's RAM budget ({@link #itemBytesByStage}): a pool
 * sized from it never makes a full pipeline wait on itself.
 *
 * <p>Clips: the decode stage's input-order window (results done behind a straggler wait parked, each video's
 * clips in clip buffers), convert's workers and queue, the batch stage's queue and partial batch, collate's
 * queue and workers. Batches: the sink's, the collators' (or, split after collate, the deliver stage's), the
 * consumer's and a spare. Pools allocate on first need, so the plan is a cap, not an allocation.
 *
 * @param options      the loader's options
 * @param config       the loader's stage settings with every stage's concurrency and queue capacity settled ({@link #of})
 * @param decodeStage  the stage that decodes ({@link VideoStage#DECODE}; the NVDEC loader's {@code NVDEC})
 * @param convertStage whether a convert stage of its own follows it (the video loader's, unless fused)
 * @param consumerBatches batches the consumer holds at once ({@link Opening#consumerBatches()}: 1, or more behind a
 *                     transfer to a GPU)
 */
public record MemoryPlan(LoaderOptions options, PipelineConfig config, LoaderStage decodeStage, boolean convertStage,
                         int consumerBatches) {
    /** Clips a video holds at once at most, for sizing: {@code clipsPerVideo} but at least this many. */
    private static final int CLIPS_PER_VIDEO_FLOOR = 8;

    /**
     * The video loader's plan for {@code options} over its {@code defaults} (its default config, with the options'
     * laid over it): decode, then convert unless fused.
     */
    public static MemoryPlan of(LoaderOptions options, PipelineConfig defaults) {
        return new MemoryPlan(options, settled(defaults.overriddenBy(options.config()), VideoStage.DECODE),
                VideoStage.DECODE, !options.decode().fusedConvert(), 1);
    }

    /**
     * The plan of a loader that runs every stage in this process, whose stage {@code decodeStage} decodes, with or
     * without a convert stage after it (the shard loader's {@code DECODE}; the NVDEC loader's {@code NVDEC}).
     */
    public static MemoryPlan of(LoaderOptions options, PipelineConfig defaults, LoaderStage decodeStage,
                                boolean convertStage) {
        LoaderOptions here = options.toBuilder().placement(LoaderOptions.Placement.IN_PROCESS).build();
        return new MemoryPlan(here, settled(defaults.overriddenBy(options.config()), decodeStage), decodeStage,
                convertStage, 1);
    }

    /** The same plan for a consumer that holds {@code batches} batches at once ({@link Opening#consumerBatches()}). */
    public MemoryPlan holdingForConsumer(int batches) {
        return new MemoryPlan(options, config, decodeStage, convertStage, batches);
    }

    /** The same plan with the pipeline's settings as they are now ({@code Pipeline.config()}, after a reconfigure). */
    public MemoryPlan with(PipelineConfig effective) {
        return new MemoryPlan(options, settled(config.overriddenBy(effective), decodeStage), decodeStage, convertStage,
                consumerBatches);
    }

    /**
     * {@code config} with every stage the plan reads settled as the pipeline settles it ({@link StageConfig#settled},
     * the sink {@link PipelineBuilder#DEFAULT_SINK_CAPACITY} unless set): the video loader's stages (whose roles
     * every loader's stages of the same name share), its deliver stage and {@code decodeStage};
     * {@code PipelineBuilder.effectiveConfig()} agrees (checked by {@code MemoryPlanTest}).
     */
    static PipelineConfig settled(PipelineConfig config, LoaderStage decodeStage) {
        Map<String, StageConfig> stages = new LinkedHashMap<>();
        for (String stage : VideoStage.NAMES) {
            stages.put(stage, config.stage(stage).settled());
        }
        stages.put(decodeStage.stageName(), config.stage(decodeStage.stageName()).settled());
        stages.put(VideoStage.DELIVER, config.stage(VideoStage.DELIVER).settled());
        config.stages().forEach((name, stage) -> stages.putIfAbsent(name, stage.settled()));
        int sink = config.sinkCapacity() != null ? config.sinkCapacity() : PipelineBuilder.DEFAULT_SINK_CAPACITY;
        return new PipelineConfig(sink, config.failureBudget(), config.stallTimeoutMillis(), stages);
    }

    private StageConfig stage(LoaderStage stage) {
        return config.stage(stage.stageName());
    }

    private int clipsPerVideo() {
        return Math.max(options.clipsPerVideo(), CLIPS_PER_VIDEO_FLOOR);
    }

    /** Clips the decode stage and convert (if any) hold: the videos of decode's window and convert's, all their clips. */
    private long decodingClips() {
        StageConfig convert = stage(VideoStage.CONVERT);
        int convertHolds = convertStage ? convert.concurrency() + convert.queueCapacity() : 0;
        return (long) (stage(decodeStage).inputOrderWindow() + convertHolds) * clipsPerVideo();
    }

    private long batchingClips() {
        return stage(VideoStage.BATCH).queueCapacity() + options.batch().size();
    }

    private long collatingClips() {
        StageConfig col = stage(VideoStage.COLLATE);
        return (long) (col.queueCapacity() + col.concurrency()) * options.batch().size() + 4;
    }

    /** Clip buffers the stages from decode to collate can hold at once, all in one process. */
    public long clipsHeld() {
        return decodingClips() + batchingClips() + collatingClips();
    }

    /**
     * Clip buffers this process holds when the stages up to {@link LoaderOptions.Placement#splitAfter()} run in a
     * child: its own stages' clips and the decoded outputs the transport reads ahead.
     */
    public long clipsHere() {
        VideoStage split = options.placement().splitAfter();
        if (!options.placement().inChild(VideoStage.DECODE)) {
            return clipsHeld();
        }
        int ahead = SubprocessOptions.DECODED_OUTPUTS_AHEAD;
        return switch (split) {
            case DECODE, CONVERT -> ahead + batchingClips() + collatingClips();
            case BATCH -> (long) ahead * options.batch().size() + collatingClips();
            default -> 0;   // collate runs in the child: no clips here (the pool allocates nothing unused)
        };
    }

    /** Bytes of this process's clip pool ({@link #clipsHere}). */
    public long clipPoolBytes() {
        return clipsHere() * options.clipShape().batchBytes();
    }

    /** Bytes of the child's clip pool, when decode runs there: every clip from decode to collate in the child. */
    public long childClipPoolBytes() {
        return clipsHeld() * options.clipShape().batchBytes();
    }

    /**
     * Batch buffers: the sink's, the collators' (split after collate: the deliver stage's, which copies the
     * child's batches into this process's pool), the consumer's ({@link #consumerBatches}) and a spare.
     */
    public long batchesHeld() {
        StageConfig handing = options.placement().splitAfter() == VideoStage.COLLATE ? config.stage(VideoStage.DELIVER) : null;
        return handing != null
                ? config.sinkCapacity() + handing.concurrency() + handing.queueCapacity() + consumerBatches + 1L
                : config.sinkCapacity() + stage(VideoStage.COLLATE).concurrency() + consumerBatches + 1L;
    }

    /** Bytes of the batch pool: {@link LoaderOptions.Batching#budgetBytes()} when set, else {@link #batchesHeld}. */
    public long batchPoolBytes() {
        long budget = options.batch().budgetBytes();
        return budget > 0 ? budget : batchesHeld() * options.batchShape().batchBytes();
    }

    /** Bytes of the batch pool of a collate stage running in a child JVM: its workers' and two more. */
    public long childBatchPoolBytes() {
        return (stage(VideoStage.COLLATE).concurrency() + 2L) * options.batchShape().batchBytes();
    }

    /**
     * Estimated bytes one item holds at each stage's input, and at the sink, for a RAM budget over the stages'
     * workers and queues: a video file ({@code fileBytes}: its mean size) for demux and decode, a video's clip
     * buffers for convert, a clip for batch, a batch's clips for collate, a batch for the sink. FFmpeg's decoded
     * pictures are not counted.
     */
    public Map<String, Long> itemBytesByStage(long fileBytes) {
        long clipBytes = options.clipShape().batchBytes();
        long batchBytes = options.batchShape().batchBytes();
        Map<String, Long> bytes = new LinkedHashMap<>();
        bytes.put(VideoStage.FETCH.stageName(), 0L);
        bytes.put(VideoStage.DEMUX.stageName(), fileBytes);
        bytes.put(decodeStage.stageName(), fileBytes);
        if (convertStage) {
            bytes.put(VideoStage.CONVERT.stageName(), clipBytes * options.clipsPerVideo());
        }
        bytes.put(VideoStage.BATCH.stageName(), clipBytes);
        bytes.put(VideoStage.COLLATE.stageName(), batchBytes);
        bytes.put("sink", batchBytes);
        return bytes;
    }

    /**
     * Bytes the loader may hold with these settings: its pools' caps (this process's and, split, the child's) and
     * the video files ({@code fileBytes} each) read into memory at demux and decode. The autotuner's RAM model
     * ({@code AutotuneBudget.withRam(bytes, itemBytesByStage, config -> plan.with(config).heldBytes(fileBytes))}).
     */
    public long heldBytes(long fileBytes) {
        long files = 0;
        for (LoaderStage name : new LoaderStage[] {VideoStage.DEMUX, decodeStage}) {
            StageConfig s = stage(name);
            files += (long) (s.concurrency() + s.queueCapacity()) * fileBytes;
        }
        LoaderOptions.Placement placement = options.placement();
        long child = (placement.inChild(VideoStage.DECODE) ? childClipPoolBytes() : 0)
                + (placement.inChild(VideoStage.COLLATE) ? childBatchPoolBytes() : 0);
        return clipPoolBytes() + batchPoolBytes() + child + files;
    }
}
