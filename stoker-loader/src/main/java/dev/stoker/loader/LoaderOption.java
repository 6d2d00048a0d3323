package dev.stoker.loader;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every value of the options document ({@link LoaderOptions} as JSON) that has a fixed place in it: its path, the
 * keyword the Python bridge takes it as, the range it must lie in and what it means. The records say what the
 * values are; this table says what crosses a boundary: {@link OptionsSchema} publishes it (with each type and
 * default read from the records), the JSON reader checks a document against it, the Python bridge is generated
 * from the published schema, and the tuner's knobs are paths of it. A stage's settings
 * ({@code config.stages.STAGE.FIELD}) have no fixed place: {@link StageOption} is their table.
 */
public enum LoaderOption {
    FRAMES("clip.frames", "frames", 1, null, "Frames per clip (T)."),
    STRIDE("clip.strideFrames", "stride", 1, null, "Source frames between two frames of a clip."),
    RESAMPLE_FPS("clip.resampleFps", "fps", 0, null,
            "When above 0, a clip is its frames resampled to this frame rate by timestamp instead of strided."),
    PAST_END("clip.pastEnd", "past_end", null, null, "What a clip running past the end of its video does."),
    CLIP_STARTS("clip.starts", "clip_starts", null, null,
            "How clip starts are chosen in a video: random (seeded), uniform, or sliding windows; or segments (one clip a"
                    + " video, a frame from each of clip.frames equal segments of it: their middle frames, or seeded random"
                    + " ones, TSN's training sampling).",
            List.of(), Map.of("random-segments", "RANDOM_SEGMENTS")),
    CLIPS_PER_VIDEO("clip.clipsPerVideo", "clips_per_video", 1, null, "Clips drawn from each video per epoch."),
    WINDOW_STEP_SECONDS("clip.windowStepSeconds", "window_step_seconds", 0, null,
            "Seconds between window starts when clip.starts is WINDOWS (above 0 then)."),
    MAX_LEAD_FRAMES("clip.maxLeadFrames", "max_lead_frames", -1, null,
            "A decode budget: clips start only at frames at most this many after the keyframe decoding must start at"
                    + " (0: on keyframes); a video with no such start uses its cheapest; -1: no budget."),
    WINDOW_FROM_SECONDS("clip.window.fromSeconds", "window_from_seconds", 0, null,
            "With a clip window (and its end): one clip a video of the frames shown from here, picked by linspace."),
    WINDOW_TO_SECONDS("clip.window.toSeconds", "window_to_seconds", null, null,
            "The end of the clip window, in seconds from the video's first frame (exclusive; above its start)."),
    FRAME_FOLDER_FPS("clip.frameFolderFps", "frame_folder_fps", null, (int) LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS,
            "Frames a second of videos stored as folders of images (JPEG or PNG, one a frame), which carry no timestamps:"
                    + " what their clip starts, windows and a manifest's seconds count in; 0.001 to 1000.",
            new Bound(LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS, false)),
    WIDTH("size.width", "width", 1, null, "Output width in pixels."),
    HEIGHT("size.height", "height", 1, null, "Output height in pixels."),
    RESIZE("size.mode", "resize", null, null,
            "How frames become width x height: the short side resized, then a centre or random crop; a random resized"
                    + " crop (a seeded share of the picture at a seeded aspect, scaled); or a stretch.",
            List.of("SHORT_SIDE_CENTER_CROP", "SHORT_SIDE_RANDOM_CROP", "RANDOM_RESIZED_CROP", "STRETCH"),
            Map.of("center-crop", "SHORT_SIDE_CENTER_CROP", "random-crop", "SHORT_SIDE_RANDOM_CROP", "stretch", "STRETCH",
                    "center", "SHORT_SIDE_CENTER_CROP", "random", "SHORT_SIDE_RANDOM_CROP",
                    "random-resized-crop", "RANDOM_RESIZED_CROP", "random-resized", "RANDOM_RESIZED_CROP")),
    SHORT_SIDE("size.shortSide", "short_side", 0, null, "The short side before cropping; 0: max(width, height)."),
    SHORT_SIDE_MAX("size.shortSideMax", "short_side_max", 0, null,
            "Scale jitter (crop modes): each clip's short side is drawn, seeded, from the short side to this (a side the"
                    + " crop does not fit in is raised, as the short side is); 0: none."),
    FLIP("size.flip", "flip", null, null,
            "Mirror half the clips left to right (seeded; a clip's frames alike), a training augmentation."),
    AREA_MIN("size.areaMin", "area_min", null, 1,
            "With a random resized crop: the smallest share of the picture a clip's cut covers, above 0 (up to all of"
                    + " it; its aspect is drawn from 3/4 to 4/3).",
            new Bound(0, true)),
    SPATIAL_CROPS("size.spatialCrops", "spatial_crops", 1, LoaderOptions.Size.MAX_SPATIAL_CROPS,
            "With a centre crop: deliver each clip this many times, cropped at places spread evenly along the picture's"
                    + " long side (3: test-time 3-crop views), the clip decoded once; 1: once, centred."),
    BATCH_SIZE("batch.size", "batch_size", 1, null, "Clips per batch (N)."),
    DROP_LAST("batch.dropLast", "drop_last", null, null, "Drop the partial batch at the end of each epoch."),
    LAYOUT("batch.layout", "layout", null, null, "Batch memory layout: NTHWC or NCTHW."),
    BATCH_BUDGET_BYTES("batch.budgetBytes", "batch_budget_bytes", 0, null,
            "Bytes of batch memory the loader may hold; 0: enough for the sink, the consumer's batch and the collators."),
    SEED("sampling.seed", "seed", null, null, "Seeds the epoch order, the clip starts, random crops, scale jitter and flips."),
    SHUFFLE("sampling.shuffle", "shuffle", null, null, "Visit videos in a seeded random order each epoch."),
    EPOCHS("sampling.epochs", "epochs", -1, null, "Epochs to run; -1 for endless (never 0)."),
    WINDOW_GROUPS("sampling.windowGroups", "window_groups", 0, null,
            "Shuffle within windows of this many consecutive files or shards; 0: a full shuffle."),
    RANK("sampling.rank", "rank", 0, null, "This process's rank, 0 to world size - 1, for data-parallel training."),
    WORLD_SIZE("sampling.worldSize", "world_size", 1, null, "Ranks that split each epoch."),
    TAIL("sampling.tail", "tail", null, null, "The remainder when an epoch does not divide by the world size."),
    DECODER_THREADS("decode.threads", "decoder_threads", 1, null,
            "FFmpeg threads per decoder (1: parallelism comes from the decode stage's concurrency)."),
    SKIP_FRAMES("decode.skipNonReferenceFrames", "skip_frames", null, null,
            "Skip decoding frames that are neither in the clip nor referenced by a frame that is."),
    FUSED_CONVERT("decode.fusedConvert", "fused_convert", null, null,
            "Convert frames inside the decode stage instead of in a convert stage of its own."),
    DECODE_DEVICE("decode.device", "decode", null, null,
            "Where clips are decoded: cpu; nvdec (the GPU's NVDEC engines; batches stay on the GPU); hybrid (NVDEC sessions"
                    + " and CPU workers at once, from one queue); auto (hybrid, nvdec or cpu, from what the machine has)."),
    NVDEC_SESSIONS("decode.nvdecSessions", "nvdec_sessions", 0, null,
            "NVDEC sessions at once with nvdec or hybrid decoding; 0: one per NVDEC engine of the GPU."),
    SPLIT_AFTER("placement.splitAfter", "split_after", null, null,
            "The last stage a child JVM runs (crash isolation); absent: every stage in this process."),
    FAILURE_BUDGET("failureBudget", "failure_budget", null, null,
            "Failed samples the loader may skip: RATE[@MIN_ITEMS] (0.3: 30% once 50 were seen; 0: stop at the first"
                    + " failure; 1: never stop), or the object form."),
    SINK_CAPACITY("config.sinkCapacity", "sink_capacity", 1, null, "Batches the sink buffers ahead of the consumer."),
    STALL_TIMEOUT_MILLIS("config.stallTimeoutMillis", "stall_timeout_millis", 0, null,
            "Quiet milliseconds after which the watchdog reports a stall; 0: off."),
    PIPELINE_FAILURE_BUDGET("config.failureBudget", "pipeline_failure_budget", null, null,
            "A pipeline-wide failure budget over source items, beside the loader's."),
    STAGES("config.stages", "stages", null, null,
            "Per-stage settings by stage name (fetch, demux, decode, convert, batch, collate for video files)."),
    FETCH_HOOK("fetchHook", "fetch_hook", null, null,
            "A class (implementing dev.stoker.loader.FetchHook) run in the fetch stage before each file is read."),
    QUARANTINE("quarantine", "quarantine", null, null,
            "A JSONL file of videos whose failure is a property of the file: skipped from the start, appended to.");

    private final String path;
    private final String keyword;
    private final Long minimum;
    private final Bound fractionalMinimum;
    private final Long maximum;
    private final String description;
    private final List<String> values;
    private final Map<String, String> aliases;

    /**
     * A lower bound a whole number cannot state: a fraction ({@code 0.001}), or a value a number must be above
     * ({@code exclusive}: JSON Schema's {@code exclusiveMinimum}).
     */
    public record Bound(double value, boolean exclusive) {
    }

    LoaderOption(String path, String keyword, Integer minimum, Integer maximum, String description) {
        this(path, keyword, minimum, maximum, description, List.of(), Map.of());
    }

    LoaderOption(String path, String keyword, Integer minimum, Integer maximum, String description, Bound bound) {
        this(path, keyword, minimum, maximum, description, List.of(), Map.of(), bound);
    }

    LoaderOption(String path, String keyword, Integer minimum, Integer maximum, String description,
                 List<String> values, Map<String, String> aliases) {
        this(path, keyword, minimum, maximum, description, values, aliases, null);
    }

    private LoaderOption(String path, String keyword, Integer minimum, Integer maximum, String description,
                         List<String> values, Map<String, String> aliases, Bound fractionalMinimum) {
        this.path = path;
        this.fractionalMinimum = fractionalMinimum;
        this.keyword = keyword;
        this.minimum = minimum == null ? null : minimum.longValue();
        this.maximum = maximum == null ? null : maximum.longValue();
        this.description = description;
        this.values = values;
        this.aliases = aliases;
    }

    /** Where it is in the document: {@code "clip.frames"}. */
    public String path() { return path; }

    /** The keyword the Python bridge takes it as: {@code "frames"}. */
    public String keyword() { return keyword; }

    /** The smallest value a number may have, if it has a bound. */
    public Optional<Long> minimum() { return Optional.ofNullable(minimum); }

    /** The lower bound of a number that a whole {@link #minimum()} cannot state, if it has one. */
    public Optional<Bound> fractionalMinimum() { return Optional.ofNullable(fractionalMinimum); }

    /** The largest value a number may have, if it has a bound. */
    public Optional<Long> maximum() { return Optional.ofNullable(maximum); }

    public String description() { return description; }

    /** For an enumerated value, the ones a loader takes where it takes fewer than its type has; else empty. */
    public List<String> allowedValues() { return values; }

    /** Other spellings a person may give an enumerated value ({@code center-crop}), and the value each means. */
    public Map<String, String> aliases() { return aliases; }

    /** Every path, in the document's order. */
    public static List<String> paths() {
        return Arrays.stream(values()).map(LoaderOption::path).toList();
    }

    /** The option at {@code path}, if one has a fixed place there. */
    public static Optional<LoaderOption> atPath(String path) {
        return Arrays.stream(values()).filter(o -> o.path.equals(path)).findFirst();
    }
}
