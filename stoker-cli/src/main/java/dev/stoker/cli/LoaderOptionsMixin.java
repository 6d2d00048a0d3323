package dev.stoker.cli;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.video.Resize;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.dataset.ClipStartBudget;
import dev.stoker.video.loader.ClipWindow;
import dev.stoker.video.loader.FailureBudgets;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.LoaderOptionsBuilder;
import dev.stoker.video.loader.LoaderStage;
import dev.stoker.video.loader.VideoLoader;
import dev.stoker.video.loader.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
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
    @Option(names = "--frames", defaultValue = "16") int frames;
    @Option(names = "--stride", defaultValue = "2") int stride;
    @Option(names = "--fps") Double fps;
    @Option(names = "--size", defaultValue = "112", paramLabel = "S|WxH") String size;
    @Option(names = "--resize", defaultValue = "center-crop", paramLabel = "MODE") String resize;
    @Option(names = "--short-side", defaultValue = "0") int shortSide;
    @Option(names = "--batch", defaultValue = "8") int batch;
    @Option(names = "--clips-per-video", defaultValue = "1") int clipsPerVideo;
    @Option(names = "--layout", defaultValue = "NTHWC") BatchLayout layout;
    @Option(names = "--seed", defaultValue = "0") long seed;
    @Option(names = "--decoder-threads", defaultValue = "1") int decoderThreads;
    @Option(names = "--no-skip-frames", negatable = true, defaultValue = "true") boolean skipFrames;
    @Option(names = "--fused-convert") boolean fusedConvert;

    @Option(names = "--concurrency", paramLabel = "STAGE=N")
    Map<String, Integer> concurrency = new LinkedHashMap<>();

    @Option(names = "--split-after", paramLabel = "STAGE") String splitAfter;
    @Option(names = "--config", paramLabel = "FILE") Path config;
    @Option(names = "--failure-budget", paramLabel = "RATE[@MIN_ITEMS]") String failureBudget;
    @Option(names = "--quarantine", paramLabel = "FILE") Path quarantine;
    @Option(names = "--max-lead-frames", paramLabel = "N") Integer maxLeadFrames;
    @Option(names = "--clip-window", paramLabel = "FROM:TO") String clipWindow;
    @Option(names = "--workload", paramLabel = "NAME") String workload;

    /** The loader options these flags (over {@code --config}, if given) describe; bad values are usage errors. */
    LoaderOptions loaderOptions() {
        LoaderOptions base;
        try {
            base = config == null ? LoaderOptions.defaults() : LoaderOptions.read(config);
        } catch (RuntimeException e) {
            throw new ParameterException(command.commandLine(), "--config: " + e.getMessage());
        }
        if (workload != null) {
            try {
                base = Workload.of(workload).applyTo(base);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(command.commandLine(), "--" + e.getMessage());
            }
        }
        // Over a file or a workload, only the flags given; without, every flag (their defaults are the options').
        ParseResult parsed = command.commandLine().getParseResult();
        boolean overDefaults = config == null && workload == null;
        Predicate<String> given = name -> overDefaults
                || (parsed == null ? workload == null : parsed.hasMatchedOption(name));
        try {
            LoaderOptionsBuilder o = base.toBuilder();
            LoaderOptions.Clip c = base.clip();
            o.clip(new LoaderOptions.Clip(given.test("--frames") ? frames : c.frames(),
                    given.test("--stride") ? stride : c.strideFrames(),
                    given.test("--fps") && fps != null ? fps : c.resampleFps(), c.pastEnd(), c.starts(),
                    given.test("--clips-per-video") ? clipsPerVideo : c.clipsPerVideo(), c.windowStepSeconds(),
                    maxLeadFrames(c), clipWindow(c)));
            if (given.test("--size") || given.test("--resize") || given.test("--short-side")) {
                int[] wh = parseSize(command, size);
                o.size(wh[0], wh[1], resizeMode(command), shortSide);
            }
            if (given.test("--batch") || given.test("--layout")) {
                o.batch(batch, base.batch().dropLast(), layout);
            }
            if (given.test("--seed")) {
                o.order(seed, base.sampling().shuffle(), base.sampling().epochs());
            }
            if (given.test("--decoder-threads") || given.test("--no-skip-frames")) {
                o.decoder(decoderThreads, skipFrames);
            }
            if (fusedConvert) {
                o.fusedConvert(true);
            }
            if (splitAfter != null) {
                o.splitAfter(LoaderStage.of(splitAfter));
            }
            if (failureBudget != null) {
                o.failureBudget(parseFailureBudget(command, failureBudget));
            }
            if (quarantine != null) {
                o.quarantine(quarantine);
            }
            o.config(concurrencyOverrides(command));
            return o.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), e.getMessage().replace("stage: '", "--split-after: '")
                    .replace("maxLeadFrames: ", "--max-lead-frames: ").replace("clip window ", "--clip-window "));
        }
    }

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

    private Resize.Mode resizeMode(CommandSpec spec) {
        return switch (resize) {
            case "center-crop" -> Resize.Mode.SHORT_SIDE_CENTER_CROP;
            case "random-crop" -> Resize.Mode.SHORT_SIDE_RANDOM_CROP;
            case "stretch" -> Resize.Mode.STRETCH;
            default -> throw new ParameterException(spec.commandLine(),
                    "--resize: " + resize + " (expected: center-crop, random-crop or stretch)");
        };
    }

    private PipelineConfig concurrencyOverrides(CommandSpec spec) {
        PipelineConfig overrides = PipelineConfig.EMPTY;
        for (Map.Entry<String, Integer> c : concurrency.entrySet()) {
            if (!VideoLoader.STAGES.contains(c.getKey())) {
                throw new ParameterException(spec.commandLine(), "--concurrency: unknown stage '" + c.getKey()
                        + "' (expected one of " + VideoLoader.STAGES + ")");
            }
            overrides = overrides.withStage(c.getKey(), StageConfig.EMPTY.withConcurrency(c.getValue()));
        }
        return overrides;
    }

    /** {@code --failure-budget}'s value ({@link FailureBudgets}); a bad one is a usage error naming the flag. */
    static FailureBudget parseFailureBudget(CommandSpec spec, String text) {
        try {
            return FailureBudgets.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--failure-budget: " + e.getMessage());
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
            String[] parts = text.toLowerCase(Locale.ROOT).split("x");
            if (parts.length == 1) {
                int s = Integer.parseInt(parts[0]);
                return new int[] {s, s};
            }
            if (parts.length == 2) {
                return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new ParameterException(spec.commandLine(), "--size: " + text + " (expected: S or WxH, e.g. 112 or 160x120)");
    }
}
