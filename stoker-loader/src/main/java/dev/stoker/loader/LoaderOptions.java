package dev.stoker.loader;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.pipeline.PipelineConfig;
import java.nio.file.Path;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * What a loader produces and how, as groups of values: the clip, its output size, the batch, the epoch
 * order, the decoder, where the stages run, the failure budget and the pipeline's knobs. Start from
 * {@link #defaults()} or {@link #builder()}; change a copy with {@link #toBuilder()}. Every loader reads the
 * same options, and so do the child JVM's stages, {@code --config}/{@code --save-config} files and the
 * Python bridge: through one JSON form ({@link #toJson()}, {@link LoaderOptionsJson}).
 *
 * <pre>{@code
 * LoaderOptions options = LoaderOptions.builder()
 *         .clip(16, 2).size(112, 112, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 128)
 *         .batch(8, false, BatchLayout.NCTHW).order(42, true, 10).rank(rank, worldSize)
 *         .failureBudget(FailureBudget.rate(0.3, 100))
 *         .build();
 * }</pre>
 *
 * @param clip          how long a clip is and how its starts are chosen
 * @param size          how frames become the output size
 * @param batch         clips per batch, layout and the batch memory budget
 * @param sampling      the epoch order: seed, shuffle, epochs, shuffle window, rank and world size, tail
 * @param decode        decoder threads, frame skipping, convert fused into decode
 * @param placement     which stages run in a child JVM
 * @param failureBudget failed samples a stage may skip before the loader gives up
 * @param config        per-stage concurrency and queue settings, laid over the loader's defaults
 * @param fetchHook     runs in the fetch stage just before each file is read (evicting its pages for a
 *                      cold-cache benchmark, say); a class, so that it runs in a child JVM too; null: none
 * @param quarantine    a JSONL file of videos whose failure is a property of the file ({@code Quarantine}): read at
 *                      start, so that they are skipped from the start, and appended to as more fail; null: a
 *                      quarantine of this run only (every loader quarantines such files at their first failure)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LoaderOptions(Clip clip, Size size, Batching batch, Sampling sampling, Decode decode, Placement placement,
                            FailureBudget failureBudget, PipelineConfig config, Class<? extends FetchHook> fetchHook,
                            Path quarantine) {

    private static final LoaderOptions DEFAULTS = new LoaderOptions(
            new Clip(16, 2, 0, PastEndPolicy.SHIFT, ClipStarts.RANDOM, 1, 1.0, ClipStartBudget.NONE, null),
            new Size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0),
            new Batching(8, false, BatchLayout.NTHWC, 0),
            new Sampling(0, true, -1, 0, 0, 1, SamplerOptions.Tail.PAD),
            new Decode(1, true, false),
            Placement.IN_PROCESS,
            FailureBudget.rate(0.10, 50),
            PipelineConfig.EMPTY,
            null,
            null);

    /**
     * How clip starts are chosen in a video: {@code clipsPerVideo} random or evenly spaced starts, every window, or one
     * clip a video whose frames are one from each of {@code frames} equal segments of the video (TSN's sampling: each
     * segment's middle frame, or a seeded random one of it).
     */
    public enum ClipStarts {
        RANDOM, UNIFORM, WINDOWS, SEGMENTS, RANDOM_SEGMENTS;

        /** Whether a clip is a video's segments (one clip a video, its frames spread over all of it). */
        public boolean segments() {
            return this == SEGMENTS || this == RANDOM_SEGMENTS;
        }
    }

    /**
     * @param frames            frames per clip (T)
     * @param strideFrames      distance between sampled frames, in source frames
     * @param resampleFps       when {@code > 0}, clips are {@code frames} frames resampled to this frame rate by
     *                          timestamp instead of strided
     * @param pastEnd           what a clip running past the video's end does
     * @param starts            random, uniform, windows, or segments (one clip a video: a frame of each of
     *                          {@code frames} equal segments, their middle or a seeded random one; the stride unused)
     * @param clipsPerVideo     clips drawn from each video per epoch
     * @param windowStepSeconds step between windows for {@link ClipStarts#WINDOWS}
     * @param maxLeadFrames     a decode budget: clips start only at frames whose decode lead (frames between the
     *                          keyframe decoding must start at and the clip's first frame) is at most this, 0 for
     *                          keyframes ({@link ClipStartBudget}); {@link ClipStartBudget#NONE} (-1): anywhere
     * @param window            when not null, each video gives one clip: {@code frames} frames spread by linspace
     *                          over the frames shown in this window (the last repeated when it holds fewer), instead of
     *                          strided or resampled frames from a sampled start ({@link ClipSpec#linspace})
     * @param frameFolderFps    frames a second of videos stored as folders of images, which carry no timestamps: what
     *                          their clip starts, windows and a manifest's seconds count in
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Clip(int frames, int strideFrames, double resampleFps, PastEndPolicy pastEnd, ClipStarts starts,
                       int clipsPerVideo, double windowStepSeconds, int maxLeadFrames, ClipWindow window,
                       double frameFolderFps) {
        /** Frames a second of a folder of images when nobody says: the usual rate frames are extracted at. */
        public static final double DEFAULT_FRAME_FOLDER_FPS = 30;
        /** The lowest rate a folder of images may play at (frame times are kept to a thousandth of a frame). */
        public static final double MIN_FRAME_FOLDER_FPS = 0.001;
        /** The highest rate a folder of images may play at. */
        public static final double MAX_FRAME_FOLDER_FPS = 1000;

        /** A clip with no decode budget and no window. */
        public Clip(int frames, int strideFrames, double resampleFps, PastEndPolicy pastEnd, ClipStarts starts,
                    int clipsPerVideo, double windowStepSeconds) {
            this(frames, strideFrames, resampleFps, pastEnd, starts, clipsPerVideo, windowStepSeconds,
                    ClipStartBudget.NONE, null);
        }

        /** A clip whose folders of images play at {@link #DEFAULT_FRAME_FOLDER_FPS}. */
        public Clip(int frames, int strideFrames, double resampleFps, PastEndPolicy pastEnd, ClipStarts starts,
                    int clipsPerVideo, double windowStepSeconds, int maxLeadFrames, ClipWindow window) {
            this(frames, strideFrames, resampleFps, pastEnd, starts, clipsPerVideo, windowStepSeconds, maxLeadFrames,
                    window, DEFAULT_FRAME_FOLDER_FPS);
        }

        /** This clip with folders of images playing at {@code fps}. */
        public Clip withFrameFolderFps(double fps) {
            return new Clip(frames, strideFrames, resampleFps, pastEnd, starts, clipsPerVideo, windowStepSeconds,
                    maxLeadFrames, window, fps);
        }

        @JsonCreator
        public Clip {
            positive("frames", frames);
            positive("strideFrames", strideFrames);
            positive("clipsPerVideo", clipsPerVideo);
            if (resampleFps < 0 || Double.isNaN(resampleFps)) {
                throw new IllegalArgumentException("resampleFps: " + resampleFps + " (expected: 0 for strided clips, or > 0)");
            }
            Objects.requireNonNull(pastEnd, "pastEnd");
            Objects.requireNonNull(starts, "starts");
            if (!(frameFolderFps >= MIN_FRAME_FOLDER_FPS && frameFolderFps <= MAX_FRAME_FOLDER_FPS)) {
                throw new InvalidValueException("frameFolderFps", frameFolderFps,
                        MIN_FRAME_FOLDER_FPS + " to " + MAX_FRAME_FOLDER_FPS + " frames a second");
            }
            if (windowStepSeconds < 0 || Double.isNaN(windowStepSeconds)) {
                throw new InvalidValueException("windowStepSeconds", windowStepSeconds, "0+; above 0 for window sampling");
            }
            if (starts == ClipStarts.WINDOWS && !(windowStepSeconds > 0)) {
                throw new IllegalArgumentException("windowStepSeconds: " + windowStepSeconds + " (expected: > 0 for window sampling)");
            }
            if (maxLeadFrames < ClipStartBudget.NONE) {
                throw new InvalidValueException("maxLeadFrames", maxLeadFrames,
                        "0+ decoded frames before a clip's first, or -1 for no budget");
            }
            if (maxLeadFrames >= 0 && starts == ClipStarts.WINDOWS && window == null) {
                throw new InvalidValueException("maxLeadFrames", maxLeadFrames + " with WINDOWS starts",
                        "-1; windows take every step");
            }
            if (starts.segments()) {
                if (window != null || clipsPerVideo != 1 || resampleFps > 0) {
                    throw new InvalidValueException("starts", starts + (window != null ? " with clip window " + window
                            : clipsPerVideo != 1 ? " with clipsPerVideo " + clipsPerVideo : " with resampleFps " + resampleFps),
                            "no window, 1 clip a video and no resampling; a video's segments are its one clip");
                }
            }
            if (window != null) {
                if (maxLeadFrames >= 0) {
                    throw new InvalidValueException("maxLeadFrames", maxLeadFrames + " with clip window " + window,
                            "-1; the window fixes where its clip starts");
                }
                if (clipsPerVideo != 1) {
                    throw new InvalidValueException("clipsPerVideo", clipsPerVideo + " with clip window " + window,
                            "1; a window is one clip a video");
                }
                if (resampleFps > 0) {
                    throw new InvalidValueException("resampleFps", resampleFps + " with clip window " + window,
                            "0; a window's frames are picked by linspace");
                }
            }
        }

        /** The clip starting at {@code startSeconds} (segments: to the video's end, their middle frames). */
        public ClipSpec at(double startSeconds) {
            return at(startSeconds, Double.POSITIVE_INFINITY, 0);
        }

        /**
         * The clip starting at {@code startSeconds}; segments span to {@code endSeconds} (infinite: the video's end) and
         * draw their random frames from {@code seed}.
         */
        public ClipSpec at(double startSeconds, double endSeconds, long seed) {
            if (starts.segments()) {
                return ClipSpec.segments(startSeconds, endSeconds, frames, starts == ClipStarts.RANDOM_SEGMENTS, seed,
                        maxLeadFrames).withPastEnd(pastEnd);
            }
            if (window != null) {
                return ClipSpec.linspace(startSeconds, window.durationSeconds(), frames).withPastEnd(pastEnd);
            }
            return resampleFps > 0
                    ? ClipSpec.resampled(startSeconds, frames / resampleFps, resampleFps).withPastEnd(pastEnd)
                    : ClipSpec.frames(startSeconds, frames, strideFrames).withPastEnd(pastEnd);
        }

        /**
         * The decode budget clip starts are drawn under ({@link ClipStartBudget}): {@link #maxLeadFrames()}, except for
         * segments, whose frames are chosen under it instead and whose one clip starts where the video does.
         */
        public int startBudget() {
            return starts.segments() ? ClipStartBudget.NONE : maxLeadFrames;
        }

        /** Seconds one clip spans in a video of {@code fps} frames per second. */
        public double seconds(double fps) {
            if (window != null) {
                return window.durationSeconds();
            }
            if (resampleFps > 0) {
                return frames / resampleFps;
            }
            return fps > 0 ? ((frames - 1) * strideFrames + 1) / fps : 0;
        }
    }

    /**
     * @param width        output width
     * @param height       output height
     * @param mode         how frames become width × height (short-side resize then centre or random crop, or a
     *                     direct stretch)
     * @param shortSide    short side before cropping; {@code 0} means max(width, height)
     * @param shortSideMax scale jitter: each clip's short side drawn (seeded) from the short side to this; 0: none
     * @param flip         mirror half the clips left to right (seeded, each clip's frames alike)
     * @param areaMin      with {@link Resize.Mode#RANDOM_RESIZED_CROP}: the smallest share of the picture a clip's cut
     *                     covers, in (0, 1]
     * @param spatialCrops with {@link Resize.Mode#SHORT_SIDE_CENTER_CROP}: each clip is delivered this many times,
     *                     cropped at places spread evenly along the picture's long side (test-time 3-crop views when
     *                     3; decoded once); 1: once, centred
     */
    public record Size(int width, int height, Resize.Mode mode, int shortSide, int shortSideMax, boolean flip,
                       double areaMin, int spatialCrops) {
        /** torchvision's {@code RandomResizedCrop} default: a cut covers 8% to all of the picture. */
        public static final double DEFAULT_AREA_MIN = 0.08;
        /** The most spatial crops a clip is cut into (PySlowFast tests with 3). */
        public static final int MAX_SPATIAL_CROPS = 10;

        public Size {
            positive("width", width);
            positive("height", height);
            Objects.requireNonNull(mode, "mode");
            if (mode == Resize.Mode.ORIGINAL) {
                throw new IllegalArgumentException("resize mode: ORIGINAL (expected: a fixed output size for batching)");
            }
            if (shortSide < 0) {
                throw new IllegalArgumentException("shortSide: " + shortSide + " (expected: 0 for automatic, or 1+)");
            }
            int side = shortSide > 0 ? shortSide : Math.max(width, height);
            if (shortSideMax != 0 && (!mode.crops() || shortSideMax < side)) {
                throw new IllegalArgumentException("shortSideMax: " + shortSideMax + (mode.crops()
                        ? " (expected: 0 for no jitter, or at least the short side, " + side + ")"
                        : " with resize mode " + mode + " (expected: 0; scale jitter needs a crop mode)"));
            }
            if (!(areaMin > 0 && areaMin <= 1)) {
                throw new IllegalArgumentException("areaMin: " + areaMin + " (expected: above 0, at most 1)");
            }
            if (spatialCrops < 1 || spatialCrops > MAX_SPATIAL_CROPS) {
                throw new InvalidValueException("spatialCrops", spatialCrops, "1 to " + MAX_SPATIAL_CROPS);
            }
            if (spatialCrops > 1 && mode != Resize.Mode.SHORT_SIDE_CENTER_CROP) {
                throw new IllegalArgumentException("spatialCrops: " + spatialCrops + " with resize mode " + mode
                        + " (expected: 1; spatial crops are centre crops moved along the long side)");
            }
        }

        /** Without augmentations: no scale jitter, no flips, the default area range of a random resized crop. */
        public Size(int width, int height, Resize.Mode mode, int shortSide) {
            this(width, height, mode, shortSide, 0, false, DEFAULT_AREA_MIN, 1);
        }

        /**
         * The resize of a clip whose random draws (crop position, short side, mirror) come from {@code seed}: the
         * one place a clip's seed becomes its framing, for every loader. With spatial crops, this is the first crop.
         */
        public Resize resize(long seed) {
            return resize(seed, 0);
        }

        /**
         * The resize of the clip at {@code clipOrdinal} among its video's clips (each clip start stands there
         * {@link #spatialCrops()} times in a row, so the ordinal picks the spatial crop too) whose random draws come from
         * {@code seed}.
         */
        public Resize resize(long seed, int clipOrdinal) {
            int side = shortSide > 0 ? shortSide : Math.max(width, height);
            Resize plain = switch (mode) {
                case SHORT_SIDE_CENTER_CROP -> Resize.centerCrop(side, width, height);
                case SHORT_SIDE_RANDOM_CROP -> Resize.randomCrop(side, width, height, seed);
                case STRETCH -> Resize.stretch(width, height);
                case RANDOM_RESIZED_CROP -> Resize.randomResizedCrop(width, height, areaMin, seed);
                case ORIGINAL -> throw new IllegalStateException("unreachable: rejected by the constructor");
            };
            Resize augmented = shortSideMax > side || flip ? plain.augmented(seed, shortSideMax, flip) : plain;
            return spatialCrops > 1 ? augmented.spatialCrop(clipOrdinal % spatialCrops, spatialCrops) : augmented;
        }

        /** Each clip start {@link #spatialCrops()} times in a row: the clips a video's starts give. */
        public double[] cropsOf(double[] starts) {
            return IntStream.range(0, starts.length * spatialCrops).mapToDouble(i -> starts[i / spatialCrops]).toArray();
        }

        /** Each start's decode lead {@link #spatialCrops()} times in a row, as {@link #cropsOf(double[])} lays clips. */
        public int[] cropsOf(int[] leadFrames) {
            return IntStream.range(0, leadFrames.length * spatialCrops).map(i -> leadFrames[i / spatialCrops]).toArray();
        }
    }

    /**
     * @param size        clips per batch (N)
     * @param dropLast    drop the partial batch at the end of each epoch
     * @param layout      batch memory layout
     * @param budgetBytes bytes of batch memory the loader may hold (0: enough for the sink, the consumer's batch
     *                    and the collators)
     */
    public record Batching(int size, boolean dropLast, BatchLayout layout, long budgetBytes) {
        public Batching {
            positive("batchSize", size);
            Objects.requireNonNull(layout, "layout");
            if (budgetBytes < 0) {
                throw new IllegalArgumentException("batchBudgetBytes: " + budgetBytes + " (expected: 0 for automatic, or 1+)");
            }
        }
    }

    /**
     * The epoch order, all of it in one place (see {@link EpochSampler}).
     *
     * @param seed         seeds the epoch order, the clip starts and random crops
     * @param shuffle      visit videos in a seeded random order each epoch
     * @param epochs       epochs to run, {@code -1} for endless
     * @param windowGroups shuffle within windows of this many consecutive files or shards (0: a full shuffle)
     * @param rank         this process's rank, {@code 0..worldSize-1}, for data-parallel training
     * @param worldSize    ranks that split each epoch
     * @param tail         the remainder when an epoch does not divide by {@code worldSize}
     */
    public record Sampling(long seed, boolean shuffle, int epochs, int windowGroups, int rank, int worldSize,
                           SamplerOptions.Tail tail) {
        public Sampling {
            if (epochs == 0 || epochs < -1) {
                throw new InvalidValueException("epochs", epochs, "1+, or -1 for endless");
            }
            new SamplerOptions(windowGroups, rank, worldSize, tail);   // checks them
        }

        /** The sampler's layout beyond seed and shuffle. */
        public SamplerOptions sampler() {
            return new SamplerOptions(windowGroups, rank, worldSize, tail);
        }
    }

    /**
     * @param threads                FFmpeg threads per decoder (1: parallelism comes from stage concurrency)
     * @param skipNonReferenceFrames skip decoding frames that are neither output nor referenced
     * @param fusedConvert           convert frames inside the decode stage instead of in a convert stage of its
     *                               own (holds no decoded pictures between stages; one less hand-off)
     * @param device                 where clips are decoded: cpu, nvdec, hybrid or auto ({@link DecodeDevice})
     * @param nvdecSessions          NVDEC sessions at once with nvdec or hybrid; 0: one per NVDEC engine of the GPU
     */
    public record Decode(int threads, boolean skipNonReferenceFrames, boolean fusedConvert, DecodeDevice device,
                         int nvdecSessions) {
        public Decode {
            positive("decoderThreads", threads);
            device = device == null ? DecodeDevice.CPU : device;
            if (nvdecSessions < 0) {
                throw new IllegalArgumentException("nvdecSessions: " + nvdecSessions + " (expected: 0+, 0: one per engine)");
            }
        }

        /** Decoding on the CPU. */
        public Decode(int threads, boolean skipNonReferenceFrames, boolean fusedConvert) {
            this(threads, skipNonReferenceFrames, fusedConvert, DecodeDevice.CPU, 0);
        }
    }

    /**
     * Where the stages run.
     *
     * @param splitAfter the last stage a child JVM runs (process isolation: a native crash there does not end
     *                   training); null: every stage in this process. After {@link VideoStage#COLLATE} only
     *                   finished batches cross; after {@link VideoStage#DECODE}, decode converts (its pictures
     *                   cannot leave the child), so convert is fused and there is no separate convert stage
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Placement(VideoStage splitAfter) {
        public static final Placement IN_PROCESS = new Placement(null);

        /** Whether {@code stage} runs in the child JVM. */
        public boolean inChild(VideoStage stage) {
            return splitAfter != null && stage.upTo(splitAfter);
        }
    }

    public LoaderOptions {
        Objects.requireNonNull(clip, "clip");
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(decode, "decode");
        placement = placement == null ? Placement.IN_PROCESS : placement;
        Objects.requireNonNull(failureBudget, "failureBudget");
        config = config == null ? PipelineConfig.EMPTY : config;
        if (fetchHook != null && !FetchHook.class.isAssignableFrom(fetchHook)) {
            throw new IllegalArgumentException("fetchHook: " + fetchHook.getName() + " (expected: a class implementing "
                    + FetchHook.class.getName() + ")");
        }
        // One meaning for each placement: decoded pictures cannot cross, so a split after decode converts
        // there; with convert fused there is no convert stage, so splitting after it is splitting after decode.
        VideoStage split = placement.splitAfter();
        if (split == VideoStage.DECODE && !decode.fusedConvert()) {
            decode = new Decode(decode.threads(), decode.skipNonReferenceFrames(), true, decode.device(),
                    decode.nvdecSessions());
        } else if (split == VideoStage.CONVERT && decode.fusedConvert()) {
            placement = new Placement(VideoStage.DECODE);
        }
    }

    static void positive(String name, int value) {
        if (value < 1) {
            throw new InvalidValueException(name, value, "1+");   // the CLI renames it to the flag
        }
    }

    /** 16 frames, stride 2, 112×112 centre crop of a 112 short side, batches of 8, one random clip per video, endless. */
    public static LoaderOptions defaults() { return DEFAULTS; }

    /** A builder starting from {@link #defaults()}. */
    public static LoaderOptionsBuilder builder() {
        return new LoaderOptionsBuilder(DEFAULTS);
    }

    /** A builder starting from these options. */
    public LoaderOptionsBuilder toBuilder() {
        return new LoaderOptionsBuilder(this);
    }

    /**
     * Clips a video gives an epoch when its starts are counted ({@link ClipStarts#RANDOM} and {@link ClipStarts#UNIFORM}):
     * its clip starts times the spatial crops of each.
     */
    public int clipsPerVideo() {
        return clip.clipsPerVideo() * size.spatialCrops();
    }

    /** The resize of a clip whose crop position, jittered short side and mirror are drawn from {@code seed}. */
    public Resize resize(long seed) {
        return size.resize(seed);
    }

    /** Where clips start in a video, as {@link Clip#starts()} chooses (random ones seeded by {@link Sampling#seed()}). */
    public ClipSampler clipSampler() {
        if (clip.window() != null) {
            return ClipSampler.fixed(clip.window().fromSeconds());
        }
        return switch (clip.starts()) {
            case RANDOM -> ClipSampler.random(clip.clipsPerVideo(), sampling.seed());
            case UNIFORM -> ClipSampler.uniform(clip.clipsPerVideo());
            case WINDOWS -> ClipSampler.windows(clip.windowStepSeconds());
            case SEGMENTS, RANDOM_SEGMENTS -> ClipSampler.fixed(0);   // the entry's start; the clip spans the rest
        };
    }

    /** One clip, as the loader's clip buffers hold it (NTHWC, N = 1). */
    public BatchShape clipShape() {
        return new BatchShape(1, clip.frames(), size.height(), size.width(), 3, BatchLayout.NTHWC);
    }

    /** One batch, as the consumer gets it. */
    public BatchShape batchShape() {
        return new BatchShape(batch.size(), clip.frames(), size.height(), size.width(), 3, batch.layout());
    }

    /** The JSON form: every group, the pipeline config inside ({@link LoaderOptionsJson}). */
    public String toJson() {
        return LoaderOptionsJson.write(this);
    }

    /**
     * Options from their JSON form; groups and fields left out keep their {@link #defaults()}. A pipeline
     * config alone (the {@code --save-config} files of earlier versions) reads as the defaults with that config.
     *
     * @throws IllegalArgumentException if the JSON is malformed, names an unknown field or holds a bad value
     */
    public static LoaderOptions fromJson(String json) {
        return LoaderOptionsJson.read(Objects.requireNonNull(json, "json"), DEFAULTS);
    }

    /**
     * These options with a document laid over them: what it names replaces what these hold (groups field by field),
     * the rest stays. {@code --options} and the Python bridge send one.
     *
     * @throws InvalidValueException (named by the path) if the document names a place it does not have or holds a bad value there
     */
    public LoaderOptions overlaid(String json) {
        return LoaderOptionsJson.read(Objects.requireNonNull(json, "json"), this);
    }

    /**
     * These options with {@code value} at {@code path} of the document ({@code "decode.threads"},
     * {@code "config.stages.decode.concurrency"}): how the tuner sets a knob.
     *
     * @throws InvalidValueException (named by the path) if the document has no such place, or the value does not fit it
     */
    public LoaderOptions with(String path, Object value) {
        return LoaderOptionsJson.with(this, Objects.requireNonNull(path, "path"), LoaderOptionsJson.tree(value));
    }

    /** The value at {@code path} of the document; a missing node where nothing sets it (a stage's unset concurrency). */
    public JsonNode valueAt(String path) {
        return LoaderOptionsJson.valueAt(this, path);
    }

    /**
     * Checks that {@link #config()} sets only stages the loader has: a stage it lacks would be silently ignored.
     *
     * @throws InvalidValueException naming the first stage that {@code stages} lacks, and the stages it has
     */
    public LoaderOptions requireStages(java.util.Collection<? extends LoaderStage> stages) {
        java.util.List<String> names = LoaderStage.names(stages);
        for (String stage : config.stages().keySet()) {
            if (!names.contains(stage)) {
                throw new InvalidValueException(LoaderOption.STAGES.path() + "." + stage, "not a stage of this loader",
                        "one of " + String.join(", ", names));
            }
        }
        return this;
    }

    /** {@link #fromJson} of a file; errors name it. */
    public static LoaderOptions read(Path file) {
        return LoaderOptionsJson.read(file, DEFAULTS);
    }
}
