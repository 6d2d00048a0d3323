package dev.stoker.cli;

import dev.stoker.loader.ClipWindow;
import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderOptionsBuilder;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The dataset argument and the clip, batch and pipeline options that every command running a loader takes
 * ({@code bench}, {@code headspace}, {@code train}, {@code serve}), so they read and behave the same.
 */
final class LoaderOptionsMixin {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    // A String, not a Path: a path folds "https://host/shards/" into "https:/host/shards", and an HTTP folder's
    // trailing slash is what tells it from a CSV manifest's URL.
    @Parameters(index = "0", arity = "0..1", paramLabel = "DATASET") String dataset;
    @Option(names = "--s3-endpoint", paramLabel = "URL") URI s3Endpoint;
    @Option(names = "--cache-dir", paramLabel = "DIR") Path cacheDir;
    @Option(names = "--cache-bytes", defaultValue = "4G", paramLabel = "BYTES") String cacheBytes;
    // No defaultValue here: LoaderFlagDefaults reads each from LoaderOptions.defaults(), the one place they are set.
    @Option(names = "--frames") int frames;
    @Option(names = "--stride") int stride;
    @Option(names = "--fps") Double fps;
    @Option(names = "--size", paramLabel = "S|WxH") String size;
    @Option(names = "--resize", paramLabel = "MODE") String resize;
    @Option(names = "--short-side") int shortSide;
    @Option(names = "--short-side-max", paramLabel = "N") int shortSideMax;
    @Option(names = "--flip", negatable = true) boolean flip;
    @Option(names = "--area-min", paramLabel = "SHARE") double areaMin;
    @Option(names = "--spatial-crops", paramLabel = "N") int spatialCrops;
    @Option(names = "--batch") int batch;
    @Option(names = "--clips-per-video") int clipsPerVideo;
    @Option(names = "--clip-starts", paramLabel = "MODE") String clipStarts;
    @Option(names = "--window-step", paramLabel = "SECONDS") double windowStep;
    @Option(names = "--frame-folder-fps", paramLabel = "FPS") double frameFolderFps;
    @Option(names = "--layout") BatchLayout layout;
    @Option(names = "--seed") long seed;
    @Option(names = "--decoder-threads") int decoderThreads;
    @Option(names = "--no-skip-frames", negatable = true) boolean skipFrames;
    @Option(names = "--fused-convert") boolean fusedConvert;
    @Option(names = "--decode", paramLabel = "cpu|nvdec|hybrid|auto") String decodeOn;
    @Option(names = "--nvdec-sessions", paramLabel = "N") Integer nvdecSessions;

    @Option(names = "--concurrency", paramLabel = "STAGE=N")
    Map<String, Integer> concurrency = new LinkedHashMap<>();

    @Option(names = "--split-after", paramLabel = "STAGE") String splitAfter;
    @Option(names = "--config", paramLabel = "FILE") Path config;
    @Option(names = "--options", paramLabel = "JSON") String options;
    @Option(names = "--failure-budget", paramLabel = "RATE[@MIN_ITEMS]") String failureBudget;
    @Option(names = "--quarantine", paramLabel = "FILE") Path quarantine;
    @Option(names = "--max-lead-frames", paramLabel = "N") Integer maxLeadFrames;
    @Option(names = "--clip-window", paramLabel = "FROM:TO") String clipWindow;
    @Option(names = "--workload", paramLabel = "NAME") String workload;

    /**
     * The loader options: the defaults, then {@code --config}'s file, then {@code --options}' document, then each flag
     * given (a flag not given changes nothing, so the file's and the document's values stand). Bad values are usage
     * errors naming the flag, or the path in the document.
     */
    LoaderOptions loaderOptions() {
        LoaderOptions o;
        try {
            o = config == null ? LoaderOptions.defaults() : LoaderOptions.read(config);
        } catch (RuntimeException e) {
            throw new ParameterException(command.commandLine(), "--config: " + e.getMessage());
        }
        if (workload != null) {
            try {
                o = Workload.of(workload).applyTo(o);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(command.commandLine(), "--" + e.getMessage());
            }
        }
        if (options != null) {
            try {
                o = o.overlaid(options);
            } catch (RuntimeException e) {
                throw new ParameterException(command.commandLine(), "--options: " + e.getMessage());
            }
        }
        Predicate<String> given = this::given;
        try {
            LoaderOptionsBuilder b = o.toBuilder();
            LoaderOptions.Clip c = o.clip();
            b.clip(new LoaderOptions.Clip(given.test("--frames") ? frames : c.frames(),
                    given.test("--stride") ? stride : c.strideFrames(),
                    given.test("--fps") && fps != null ? fps : c.resampleFps(), c.pastEnd(),
                    given.test("--clip-starts") ? clipStartsMode(command) : c.starts(),
                    given.test("--clips-per-video") ? clipsPerVideo : c.clipsPerVideo(),
                    given.test("--window-step") ? windowStep : c.windowStepSeconds(),
                    maxLeadFrames(c), clipWindow(c),
                    given.test("--frame-folder-fps") ? frameFolderFps : c.frameFolderFps()));
            LoaderOptions.Size z = o.size();
            int[] wh = given.test("--size") ? parseSize(command, size) : new int[] {z.width(), z.height()};
            b.size(new LoaderOptions.Size(wh[0], wh[1], given.test("--resize") ? resizeMode(command) : z.mode(),
                    given.test("--short-side") ? shortSide : z.shortSide(),
                    given.test("--short-side-max") ? shortSideMax : z.shortSideMax(),
                    given.test("--flip") ? flip : z.flip(), given.test("--area-min") ? areaMin : z.areaMin(),
                    given.test("--spatial-crops") ? spatialCrops : z.spatialCrops()));
            b.batch(given.test("--batch") ? batch : o.batch().size(), o.batch().dropLast(),
                    given.test("--layout") ? layout : o.batch().layout());
            if (given.test("--seed")) {
                b.order(seed, o.sampling().shuffle(), o.sampling().epochs());
            }
            b.decoder(given.test("--decoder-threads") ? decoderThreads : o.decode().threads(),
                    given.test("--no-skip-frames") ? skipFrames : o.decode().skipNonReferenceFrames());
            if (fusedConvert) {
                b.fusedConvert(true);
            }
            if (given.test("--decode") || given.test("--nvdec-sessions")) {
                b.decodeOn(given.test("--decode") ? decodeDevice(command, decodeOn) : o.decode().device(),
                        given.test("--nvdec-sessions") ? positiveSessions(command, nvdecSessions) : o.decode().nvdecSessions());
            }
            if (splitAfter != null) {
                b.splitAfter(VideoStage.of(splitAfter));
            }
            if (failureBudget != null) {
                b.failureBudget(parseFailureBudget(command, failureBudget));
            }
            if (quarantine != null) {
                b.quarantine(quarantine);
            }
            b.config(concurrencyOverrides(command));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), CliErrors.asOption(e, FLAGS_OF_FIELDS));
        }
    }

    /** The flag that sets each field an options error names: the error speaks the flags the user typed. */
    private static final Map<String, String> FLAGS_OF_FIELDS = Map.ofEntries(Map.entry("stage", "--split-after"),
            Map.entry("maxLeadFrames", "--max-lead-frames"), Map.entry("clipsPerVideo", "--clips-per-video"),
            Map.entry("resampleFps", "--fps"), Map.entry("frameFolderFps", "--frame-folder-fps"),
            Map.entry("frames", "--frames"), Map.entry("strideFrames", "--stride"), Map.entry("batchSize", "--batch"),
            Map.entry("decoderThreads", "--decoder-threads"), Map.entry("spatialCrops", "--spatial-crops"),
            Map.entry("shortSideMax", "--short-side-max"), Map.entry("areaMin", "--area-min"),
            Map.entry("concurrency", "--concurrency"));

    /** {@code --max-lead-frames}, checked, else the base's. */
    private int maxLeadFrames(LoaderOptions.Clip base) {
        if (maxLeadFrames == null) {
            return base.maxLeadFrames();
        }
        if (maxLeadFrames < ClipStartBudget.NONE) {
            throw new ParameterException(command.commandLine(), "--max-lead-frames: " + maxLeadFrames
                    + " (expected: 0+ frames decoded before a clip's first, 0 for keyframes, or -1 for no budget)");
        }
        return maxLeadFrames;
    }

    /** {@code --clip-window FROM:TO}, parsed, else the base's. */
    private ClipWindow clipWindow(LoaderOptions.Clip base) {
        if (clipWindow == null) {
            return base.window();
        }
        try {
            return ClipWindow.parse(clipWindow);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "--" + e.getMessage().replace("clip window: ", "clip-window: "));
        }
    }

    /** Whether {@code flag} was on the command line (so that it lays its value over the file's and the document's). */
    boolean given(String flag) {
        ParseResult parsed = command.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(flag);
    }

    /** The default of each flag that sets one value, read from {@link LoaderOptions#defaults()}; null for others. */
    static String defaultOf(String flag) {
        LoaderOptions d = LoaderOptions.defaults();
        return switch (flag) {
            case "--frames" -> Integer.toString(d.clip().frames());
            case "--stride" -> Integer.toString(d.clip().strideFrames());
            case "--size" -> d.size().width() == d.size().height() ? Integer.toString(d.size().width())
                    : d.size().width() + "x" + d.size().height();
            case "--resize" -> RESIZE_NAMES.entrySet().stream().filter(e -> e.getValue() == d.size().mode())
                    .map(Map.Entry::getKey).findFirst().orElseThrow();
            case "--short-side" -> Integer.toString(d.size().shortSide());
            case "--short-side-max" -> Integer.toString(d.size().shortSideMax());
            case "--area-min" -> Double.toString(d.size().areaMin());
            case "--spatial-crops" -> Integer.toString(d.size().spatialCrops());
            case "--batch" -> Integer.toString(d.batch().size());
            case "--clips-per-video" -> Integer.toString(d.clip().clipsPerVideo());
            case "--clip-starts" -> d.clip().starts().name().toLowerCase(java.util.Locale.ROOT);
            case "--window-step" -> Double.toString(d.clip().windowStepSeconds());
            case "--frame-folder-fps" -> Double.toString(d.clip().frameFolderFps());
            case "--layout" -> d.batch().layout().name();
            case "--seed" -> Long.toString(d.sampling().seed());
            case "--decoder-threads" -> Integer.toString(d.decode().threads());
            case "--no-skip-frames" -> Boolean.toString(d.decode().skipNonReferenceFrames());
            case "--decode" -> d.decode().device().toString();
            case "--rank" -> Integer.toString(d.sampling().rank());
            case "--world-size" -> Integer.toString(d.sampling().worldSize());
            case "--epochs" -> Integer.toString(d.sampling().epochs());
            default -> null;
        };
    }

    private static DecodeDevice decodeDevice(CommandSpec spec, String text) {
        try {
            return DecodeDevice.of(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
        }
    }

    private static int positiveSessions(CommandSpec spec, int sessions) {
        if (sessions < 1) {
            throw new ParameterException(spec.commandLine(), "--nvdec-sessions: " + sessions
                    + " (expected: 1+; leave it out for one session per NVDEC engine)");
        }
        return sessions;
    }

    /**
     * Refuses GPU decoding in a command whose loader decodes on the CPU ({@code headspace}, {@code train}): a usage
     * error naming the commands that do it.
     */
    static void requireCpuDecode(CommandSpec spec, LoaderOptions options) {
        if (options.decode().device() != DecodeDevice.CPU) {
            throw new ParameterException(spec.commandLine(), "--decode " + options.decode().device()
                    + " (expected: cpu here; stoker bench and stoker serve decode on the GPU)");
        }
    }

    /** {@code --resize}'s spellings. */
    private static final Map<String, Resize.Mode> RESIZE_NAMES = Map.of("center-crop", Resize.Mode.SHORT_SIDE_CENTER_CROP,
            "random-crop", Resize.Mode.SHORT_SIDE_RANDOM_CROP, "random-resized-crop", Resize.Mode.RANDOM_RESIZED_CROP,
            "stretch", Resize.Mode.STRETCH);

    private Resize.Mode resizeMode(CommandSpec spec) {
        Resize.Mode mode = RESIZE_NAMES.get(resize);
        if (mode == null) {
            throw new ParameterException(spec.commandLine(),
                    "--resize: " + resize + " (expected: center-crop, random-crop, random-resized-crop or stretch)");
        }
        return mode;
    }

    private LoaderOptions.ClipStarts clipStartsMode(CommandSpec spec) {
        for (LoaderOptions.ClipStarts mode : LoaderOptions.ClipStarts.values()) {
            if (mode.name().replace('_', '-').equalsIgnoreCase(clipStarts.replace('_', '-'))) {
                return mode;
            }
        }
        throw new ParameterException(spec.commandLine(),
                "--clip-starts: " + clipStarts + " (expected: random, uniform, windows, segments or random-segments)");
    }

    private PipelineConfig concurrencyOverrides(CommandSpec spec) {
        PipelineConfig overrides = PipelineConfig.EMPTY;
        for (Map.Entry<String, Integer> c : concurrency.entrySet()) {
            if (!VideoStage.NAMES.contains(c.getKey())) {
                throw new ParameterException(spec.commandLine(), "--concurrency: unknown stage '" + c.getKey()
                        + "' (expected one of " + VideoStage.NAMES + ")");
            }
            overrides = overrides.withStage(c.getKey(), StageConfig.EMPTY.withConcurrency(c.getValue()));
        }
        return overrides;
    }

    /** {@code --failure-budget}'s value ({@link FailureBudget#parse}); a bad one is a usage error naming the flag. */
    static FailureBudget parseFailureBudget(CommandSpec spec, String text) {
        try {
            return FailureBudget.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), CliErrors.asOption(e, Map.of("failureBudget", "--failure-budget")));
        }
    }

    /** The dataset argument, or the demo dataset (made once in the cache). */
    Path datasetRoot(PrintWriter out) throws IOException {
        return datasetRoot(dataset, s3Endpoint, out);
    }

    /**
     * {@code dataset}, copied into the cache first when it is remote (through {@code s3Endpoint} for s3://), or the
     * demo dataset without one.
     */
    static Path datasetRoot(String dataset, URI s3Endpoint, PrintWriter out) throws IOException {
        if (dataset != null && BlobStore.isRemote(dataset)) {
            return RemoteLocations.copyVideos(out, dataset, s3Endpoint);
        }
        return dataset != null ? Path.of(dataset) : demoDataset(out);
    }

    /**
     * Where the dataset is, resolved once: {@code s3://} or {@code https://} shards written by {@code stoker ingest}
     * stay where they are (one HEAD of their manifest tells), remote videos are copied into the cache first, and
     * without a DATASET it is the demo dataset.
     */
    DatasetLocation location(PrintWriter out) throws IOException {
        if (dataset != null && BlobStore.isRemote(dataset) && ShardDataset.isShardDataset(dataset, s3Endpoint)) {
            return new DatasetLocation.RemoteShards(dataset, s3Endpoint, blockCache());
        }
        return new DatasetLocation.Folder(datasetRoot(out));
    }

    /**
     * The block cache of remote shards {@code --cache-dir} and {@code --cache-bytes} describe; null without
     * {@code --cache-dir}.
     */
    BlockCache.Settings blockCache() {
        if (cacheDir == null) {
            return null;
        }
        try {
            return BlockCache.Settings.of(cacheDir, IngestOptions.parseBytes(cacheBytes));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "--cache-bytes: " + e.getMessage());
        }
    }

    /** The demo dataset, made once in the cache (saying so the first time). */
    static Path demoDataset(PrintWriter out) throws IOException {
        Path dir = cacheDir().resolve("demo-kinetics");
        if (!DemoDataset.isComplete(dir, DemoSpec.kineticsLike())) {
            out.println("creating the demo dataset in " + dir + " (once; about a minute on 2 cores)...");
            out.flush();
        }
        return DemoDataset.ensure(dir);
    }

    /** Opens {@code root} as a dataset; a missing or malformed one is a usage error naming it. */
    /** {@code --frame-folder-fps} of a command without the loader's options (scan, clip), checked as the options check it. */
    static double frameFolderFps(CommandSpec spec, double fps) {
        if (!(fps >= LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS && fps <= LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS)) {
            throw new ParameterException(spec.commandLine(), "--frame-folder-fps: " + fps + " (expected: "
                    + LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS + " to " + LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS + ")");
        }
        return fps;
    }

    static Dataset openDataset(CommandSpec spec, Path root) {
        return openDataset(spec, "DATASET", root);
    }

    /** {@link #openDataset(CommandSpec, Path)} for a parameter labelled {@code label} ({@code SRC}). */
    static Dataset openDataset(CommandSpec spec, String label, Path root) {
        try {
            return Dataset.open(root);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), label + ": " + CliErrors.describePath(root, e));
        }
    }

    /** Where made-once data lives: $STOKER_CACHE, else ~/.cache/stoker. */
    static Path cacheDir() {
        String env = System.getenv("STOKER_CACHE");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "stoker");
    }

    private static int[] parseSize(CommandSpec spec, String text) {
        try {
            SizeArgument size = SizeArgument.parse(text);
            return new int[] {size.width(), size.height()};
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
