package dev.stoker.cli;

import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.cli.DemoWorkload.Batch;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.Sink;
import dev.stoker.pipeline.TraceRecorder;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;

/** {@code stoker demo}: runs {@link DemoWorkload} and shows what the stats say about it. */
@Command(name = "demo",
        header = "A synthetic pipeline (no video) with live per-stage stats.",
        mixinStandardHelpOptions = true,
        description = {
                "Runs a synthetic video-loading pipeline and shows live per-stage stats.",
                "",
                "No files, no GPU: only the shape and the costs of a real loader.",
                "  source   500 video ids an epoch, shuffled",
                "  fetch    simulated I/O, 2 ms, 8 virtual threads",
                "  demux    2-4 clips a video",
                "  decode   6 ms of CPU a clip, 2 workers, input order",
                "  augment  0.5 ms of CPU a clip",
                "  batch    8 clips, then collate",
                "  consumer a 20 ms training step a batch",
                "The last line names the bottleneck: decode, with these settings. On a machine",
                "with 4+ cores, give decode 4 workers in a config and the training step becomes",
                "the bottleneck.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker demo                         10 s of live stats, then the verdict",
                "  stoker demo --seconds 0             until Ctrl-C",
                "  stoker demo --json stats.json --trace demo.trace.json",
                "                                      stats; a trace for ui.perfetto.dev",
                "  stoker demo --save-config c.json    the effective config, to edit",
                "  stoker demo --config c.json         with c.json edited to hold",
                "                                      {\"stages\": {\"decode\": {\"concurrency\": 4}}}",
        })
final class DemoCommand extends Subcommand {
    private static final Duration REFRESH = Duration.ofSeconds(1);
    private static final long SHUTDOWN_GRACE_MILLIS = 3_000;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "10") long seconds;
    @Option(names = "--trace", paramLabel = "FILE") Path trace;
    @Option(names = "--json", paramLabel = "FILE") Path json;
    @Option(names = "--config", paramLabel = "FILE") Path config;
    @Option(names = "--save-config", paramLabel = "FILE") Path saveConfig;

    private final AtomicLong samplesTrained = new AtomicLong();
    private final AtomicLong stepsTrained = new AtomicLong();
    private volatile boolean stopRequested;

    @Override
    public Integer call() throws Exception {
        validate();
        OutputFiles.checkWritable("--json", json);
        OutputFiles.checkWritable("--trace", trace);
        PipelineConfig overrides = config == null ? PipelineConfig.EMPTY : PipelineConfig.read(config);
        TraceRecorder recorder = trace == null ? null : TraceRecorder.create();
        PipelineBuilder<Batch> builder = new DemoWorkload(CpuBurn.calibrated()).pipeline().config(overrides);
        if (recorder != null) {
            builder = builder.trace(recorder);
        }
        PrintWriter out = out();

        PipelineStats stats;
        CountDownLatch finished = new CountDownLatch(1);
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);   // unused when seconds == 0
        Pipeline<Batch> pipeline = builder.build(Sink.buffer(DemoWorkload.SINK_CAPACITY));
        ShutdownHook onCtrlC = ShutdownHook.add("stoker-demo-shutdown", () -> stopOnCtrlC(pipeline, finished));
        try (onCtrlC) {
            try (pipeline) {
                if (saveConfig != null) {
                    OutputFiles.write("--save-config", saveConfig, pipeline.config().toJson());
                }
                LiveStatsView view = LiveStatsView.start(pipeline, samplesTrained::get, seconds, out,
                        LiveStatsView.stdoutIsTerminal(), REFRESH);
                try {
                    train(pipeline, deadlineNanos);
                } finally {
                    view.close();
                }
                stats = pipeline.stats();
            }
            report(out, stats, recorder);
        } finally {
            finished.countDown();   // a running hook waits for it
        }
        return ExitCode.OK;
    }

    private void validate() {
        if (seconds < 0) {
            throw usageError("--seconds: " + seconds + " (expected: 0+, 0 = until Ctrl-C)");
        }
        if (config != null && !Files.isRegularFile(config)) {
            throw usageError("--config: " + config
                    + " is not a file (expected: a pipeline config JSON, as --save-config writes)");
        }
        requireParentDirectory("--trace", trace);
        requireParentDirectory("--json", json);
        requireParentDirectory("--save-config", saveConfig);
    }

    private void requireParentDirectory(String option, Path file) {
        if (file == null) {
            return;
        }
        if (Files.isDirectory(file)) {
            throw usageError(option + ": " + file + " is a directory (expected: a file to write)");
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw usageError(option + ": " + file + " (expected: a file in an existing directory; "
                    + parent + " is not one)");
        }
    }

    /** The consumer: a training step per batch until time is up or Ctrl-C. */
    private void train(Pipeline<Batch> pipeline, long deadlineNanos) throws InterruptedException {
        Iterator<Batch> batches = pipeline.iterator();
        try {
            while (!stopRequested && (seconds == 0 || System.nanoTime() - deadlineNanos < 0) && batches.hasNext()) {
                Batch batch = batches.next();
                DemoWorkload.trainStep(batch);
                samplesTrained.addAndGet(batch.clips());
                stepsTrained.incrementAndGet();
            }
        } catch (IllegalStateException e) {
            if (!stopRequested) {   // closed by Ctrl-C: a normal end
                throw e;
            }
        }
    }

    private void report(PrintWriter out, PipelineStats stats, TraceRecorder recorder) {
        double elapsedSeconds = stats.elapsedMillis() / 1000.0;
        synchronized (out) {
            out.printf(Locale.ROOT, "%s after %.1f s (%d cores):%n", stopRequested ? "stopped (Ctrl-C)" : "final stats",
                    elapsedSeconds, Runtime.getRuntime().availableProcessors());
            out.print(stats.toTable());
            out.printf(Locale.ROOT, "trained %d steps on %d samples: %.0f samples/s; the training step waited for data %.0f%% of the time%n",
                    stepsTrained.get(), samplesTrained.get(), samplesTrained.get() / Math.max(elapsedSeconds, 1e-3),
                    100 * stats.sink().consumerWaitMillis() / Math.max(stats.elapsedMillis(), 1));
            String hint = hint(stats);
            if (!hint.isEmpty()) {
                out.println(hint);
            }
            if (json != null) {
                OutputFiles.write("--json", json, stats.toJson());
                out.println("wrote stats to " + json);
            }
            OutputFiles.trace(out, trace, recorder);
            if (saveConfig != null) {
                out.println("wrote config to " + saveConfig);
            }
            out.flush();
        }
    }

    private static String hint(PipelineStats stats) {
        String stage = stats.verdict().bottleneck();
        int cores = Runtime.getRuntime().availableProcessors();
        return switch (stats.verdict().state()) {
            case SATURATED -> {
                if (stage.equals("source")) {
                    yield "";
                }
                int workers = stats.stage(stage).concurrency();
                yield workers < cores
                        ? "hint: give '" + stage + "' more workers (this machine has " + cores + " cores): --save-config c.json,"
                                + " raise stages." + stage + ".concurrency in it, run with --config c.json"
                        : "hint: '" + stage + "' has " + workers + " workers on " + cores
                                + " cores: the CPU is the limit here; more workers help on a machine with more cores";
            }
            case CONSUMER_BOUND -> "hint: the loader keeps ahead of training; it could do with fewer workers";
            case CPU_BOUND -> "hint: the CPU is the limit here, not a stage's workers: shards (stoker ingest) or smaller"
                    + " clips cost less a clip; a machine with more cores goes faster";
            default -> "";
        };
    }

    /** Shutdown hook: ask the consumer to stop, let it print and write its files; close the pipeline if it is stuck. */
    private void stopOnCtrlC(Pipeline<Batch> pipeline, CountDownLatch finished) {
        stopRequested = true;
        try {
            if (!finished.await(SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
                pipeline.close();
                finished.await(SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
