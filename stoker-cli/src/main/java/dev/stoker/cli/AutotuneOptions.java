package dev.stoker.cli;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.VideoStage;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.store.IngestOptions;
import dev.stoker.tune.Autotune;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench --autotune}: the online autotuner adjusts the running loader's stage concurrency,
 * queues and sink within a CPU and a RAM budget; at the end, the changes it made and the config it left.
 */
final class AutotuneOptions {
    @Option(names = "--autotune") boolean enabled;
    @Option(names = "--autotune-cores", paramLabel = "N", defaultValue = "0") double cores;
    @Option(names = "--autotune-ram", paramLabel = "BYTES") String ram;
    @Option(names = "--autotune-window", paramLabel = "MS", defaultValue = "500") long windowMillis;

    private Autotune running;
    private AutotuneBudget budget;

    /** Refuses --autotune where it cannot run safely: shards (the shard loader's pools do not follow reconfiguration yet). */
    void rejectShards(CommandSpec spec, DatasetLocation dataset) {
        if (enabled && dataset.isShards()) {
            throw new ParameterException(spec.commandLine(), "--autotune with a shard folder " + dataset.name() + ": not supported"
                    + " yet (the shard loader sizes its buffer pools once, so growing its stages could stall it;"
                    + " expected: a dataset of video files)");
        }
    }

    /** Starts tuning {@code loader} (null without --autotune); close the result to stop. */
    Autotune start(CommandSpec spec, VideoLoader loader, PrintWriter out) {
        if (!enabled) {
            return null;
        }
        if (loader == null) {
            throw new ParameterException(spec.commandLine(), "--autotune with --decode nvdec: not supported yet"
                    + " (expected: CPU decoding)");
        }
        Map<String, Long> itemBytes = loader.itemBytesByStage();
        long fileBytes = itemBytes.getOrDefault(VideoStage.DEMUX.stageName(), 0L);
        MemoryPlan plan = loader.memoryPlan();
        // The loader's own memory model: what its pools and the files in flight may hold with a config.
        budget = budget(spec, itemBytes, config -> plan.with(config).heldBytes(fileBytes));
        out.printf(Locale.ROOT, "autotune: on, within %.1f cores and %s of estimated item memory (now %s), %d ms windows%n",
                budget.cores(), bytes(budget.ramBytes()), bytes(budget.ramBytes(loader.pipeline().config())), windowMillis);
        out.flush();
        running = Autotune.online(loader.pipeline(), budget);
        return running;
    }

    AutotuneBudget budget(CommandSpec spec, Map<String, Long> itemBytes, ToLongFunction<PipelineConfig> heldBytes) {
        int processors = Runtime.getRuntime().availableProcessors();
        double c = cores > 0 ? cores : processors;
        long ramBytes;
        try {
            ramBytes = ram != null ? IngestOptions.parseBytes(ram) : defaultRamBytes();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--autotune-ram: " + e.getMessage());
        }
        if (!(cores >= 0) || Double.isInfinite(cores)) {
            throw new ParameterException(spec.commandLine(), "--autotune-cores: " + cores
                    + " (expected: a number of cores above 0, or 0 for all of them)");
        }
        if (windowMillis < 20) {
            throw new ParameterException(spec.commandLine(), "--autotune-window: " + windowMillis + " (expected: 20+ ms)");
        }
        return AutotuneBudget.defaults().withCores(c).withRam(ramBytes, itemBytes, heldBytes)
                .withWindow(Duration.ofMillis(windowMillis), 2);
    }

    private static long defaultRamBytes() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                && os.getTotalMemorySize() > 0) {
            return os.getTotalMemorySize() / 4;
        }
        return 1L << 30;
    }

    /**
     * After the run (the tuner closed): prints the changes and the config the tuner left, saves it to
     * {@code saveConfig} when given (within {@code options}, in their JSON form), and returns it; without
     * --autotune, returns {@code effective} untouched.
     */
    PipelineConfig finish(PrintWriter out, Pipeline<?> pipeline, PipelineConfig start, LoaderOptions options,
                          Path saveConfig) {
        if (running == null) {
            return start;
        }
        PipelineConfig end = pipeline.config();
        List<AutotuneChange> changes = running.changes();
        out.printf(Locale.ROOT, "autotune: %d changes, %d kept%n", changes.size(), running.kept().size());
        for (AutotuneChange c : changes) {
            out.println("  " + c);
        }
        out.println("autotune: start config " + describe(start));
        out.println("autotune: final config " + describe(end) + (end.equals(start) ? " (unchanged)" : ""));
        out.printf(Locale.ROOT, "autotune: the final config holds an estimated %s of items (budget %s)%n",
                bytes(budget.ramBytes(end)), bytes(budget.ramBytes()));
        out.println("(samples/s below was measured while the autotuner tried configs; run again with --config FILE"
                + " to measure the final config alone)");
        if (saveConfig != null) {
            try {
                Files.writeString(saveConfig, options.toBuilder().config(end).build().toJson());
            } catch (IOException e) {
                throw new UncheckedIOException("--save-config: cannot write " + saveConfig + " (" + CliErrors.describe(e) + ")", e);
            }
            out.println("autotune: saved the final config to " + saveConfig);
        }
        return end;
    }

    /** {@code fetch 4/8 demux 1/2 ... sink 4}: each stage's workers/queue capacity, then the sink. */
    static String describe(PipelineConfig config) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, StageConfig> s : config.stages().entrySet()) {
            parts.add(s.getKey() + " " + s.getValue().concurrency() + "/" + s.getValue().queueCapacity());
        }
        parts.add("sink " + config.sinkCapacity());
        return String.join(", ", parts) + " (workers/queue)";
    }

    private static String bytes(long n) {
        if (n == Long.MAX_VALUE) {
            return "unlimited";
        }
        return n >= 1L << 30 ? String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30))
                : String.format(Locale.ROOT, "%.0f MiB", n / (double) (1L << 20));
    }
}
