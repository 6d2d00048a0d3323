package dev.stoker.cli;

import dev.stoker.bench.internal.BenchResult;
import dev.stoker.bench.internal.ClipStartReport;
import dev.stoker.bench.internal.DeliveredClips;
import dev.stoker.bench.internal.EligibleStarts;
import dev.stoker.bench.internal.MemoryTimeline;
import dev.stoker.bench.internal.SteadyStateRun;
import dev.stoker.bench.internal.Yardsticks;
import dev.stoker.gpu.GpuDecodeOptions;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.ClipStartStats;
import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.observe.internal.BenchReportWriter;
import dev.stoker.observe.internal.BenchWatch;
import dev.stoker.observe.internal.DashboardServer;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.tune.Headspace;
import dev.stoker.tune.HeadspaceResult;
import dev.stoker.tune.TensorBatch;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code stoker bench}: loads real video clips as fast as it can and says how fast, and what limits it. */
@Command(name = "bench",
        header = "Load clips from a dataset as fast as possible: samples/s, stage stats, the bottleneck.",
        mixinStandardHelpOptions = true,
        subcommands = BenchFormatsCommand.class,
        description = {
                "Loads batches of clips from a video dataset through the full pipeline",
                "(fetch, demux, decode, convert, batch, collate) and reports samples/s, frames/s, per-stage",
                "stats, failures by reason and decode efficiency: samples/s divided by (cores x the",
                "single-thread rate of the same clips, measured in the same run).",
                "",
                "DATASET is a folder ROOT/<class>/<video>, a CSV manifest path,label[,start,end[,text]],",
                "or WebDataset shards (.tar archives of <key>.mp4 and <key>.cls: a folder of them, or one).",
                "Without one, a demo dataset (100 Kinetics-like 10 s clips) is made once in",
                "$STOKER_CACHE (default ~/.cache/stoker) and used.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker bench                                  the demo dataset, defaults",
                "  stoker bench ~/kinetics/train --batches 500 --json bench.json",
                "  stoker bench DATA --frames 8 --stride 4 --size 224 --batch 16",
                "  stoker bench DATA --concurrency decode=3 --concurrency fetch=8",
                "  stoker bench DATA --trace bench.trace.json    open it in ui.perfetto.dev",
                "  stoker bench --batches 5000                   watch memory stay flat",
                "  stoker bench --dashboard                      dashboard on localhost:8077",
                "  stoker bench --publish 7077                   then: stoker monitor :7077",
                "  stoker bench --report bench.html              charts in one HTML file",
                "  stoker bench DATA --split-after collate       decode in a child JVM: an",
                "                                                FFmpeg crash restarts only it",
                "  stoker bench --autotune --save-config c.json  tune as it runs, keep it",
                "  stoker bench shards/demo --cold --consumer-ms 50",
                "                                                cold page cache, a 50 ms step",
                "  stoker bench formats DATA                     files vs each shard format",
                "  stoker bench --compare-sampling               default vs decode budgets,",
                "                                                SPDL's workload, 2 and 4 a video",
                "  stoker bench --device cuda:0 --decode nvdec   NVDEC decode (experimental)",
        })
final class BenchCommand extends Subcommand {
    /** How long a stopped run may take to print and write its figures before the JVM exits anyway. */
    private static final long STOPPED_REPORT_GRACE_SECONDS = 30;

    @Mixin
    LoaderOptionsMixin loader;

    @Option(names = "--device", defaultValue = "cpu", paramLabel = "cpu|cuda:N") String device;

    @Mixin
    BenchDevice.DecodeOptions decode; // --no-cpu-fallback (--decode, --nvdec-sessions: the loader options')







    @Option(names = "--batches", defaultValue = "100") long batches;
    @Option(names = "--compare-sampling") boolean compareSampling;
    @Option(names = "--rounds", defaultValue = "3") int rounds;

    @Mixin
    BenchStorageOptions storage; // --cold, --prefetch-bytes, --prefetch-batches, --consumer-ms









    @Option(names = "--save-config", paramLabel = "FILE") Path saveConfig;

    @Mixin
    AutotuneOptions autotune; // --autotune, --autotune-cores, --autotune-ram, --autotune-window

    @Mixin
    RunFileOptions files; // --json, --trace, --report

    @Option(names = "--clips-out", paramLabel = "FILE") Path clipsOut;
    @Option(names = "--no-reference") boolean noReference;

    // Seeing the run (BenchWatch): a live dashboard, a stats stream; with --report, the series its HTML report charts.
    @Option(names = "--dashboard", arity = "0..1", preprocessor = OptionalPort.class,
            fallbackValue = "" + DashboardServer.DEFAULT_PORT, paramLabel = "PORT")
    Integer dashboardPort;

    @Option(names = "--publish", paramLabel = "PORT") Integer publishPort;
    @Option(names = "--ceiling") boolean ceiling;

    private static final int HEADSPACE_STEPS = 20;
    private static final int REFERENCE_CLIPS = 128;
    private static final int HEADSPACE_CACHED = 8;
    /** Videos indexed for the eligible share of a decode budget. */
    private static final int ELIGIBLE_SCAN_VIDEOS = 64;

    @Option(names = "--headspace", paramLabel = "STEP_MS") Double headspaceStepMillis;

    @Override
    public Integer call() throws Exception {
        files.checkWritable();
        OutputFiles.checkWritable("--save-config", saveConfig);
        PrintWriter out = out();
        LoaderOptions options = GpuDecodeOptions.resolve(storage.withColdFetch(loader.loaderOptions()));
        DeviceSpec deviceSpec = decode.device(BenchDevice.parse(device, spec), spec, options, storage.cold);
        DecodeDevice mode = options.decode().device();
        BenchDevice.requireAvailable(deviceSpec, mode); // before any dataset work: one line naming what is missing
        if (batches < 1) {
            throw usageError("--batches: " + batches + " (expected: 1+)");
        }
        for (var port : java.util.Map.of("--dashboard", java.util.Optional.ofNullable(dashboardPort),
                "--publish", java.util.Optional.ofNullable(publishPort)).entrySet()) {
            if (port.getValue().isPresent() && (port.getValue().get() < 0 || port.getValue().get() > 65535)) {
                throw usageError(port.getKey() + ": " + port.getValue().get() + " (expected: a port, 0..65535; 0 for any"
                        + " free one)");
            }
        }
        if (!(storage.consumerMillis >= 0) || Double.isInfinite(storage.consumerMillis)) {
            throw usageError("--consumer-ms: " + storage.consumerMillis + " (expected: 0+ milliseconds)");
        }
        if (headspaceStepMillis != null && !(headspaceStepMillis > 0 && Double.isFinite(headspaceStepMillis))) {
            throw usageError("--headspace: " + headspaceStepMillis + " (expected: a step above 0 ms)");
        }
        DatasetLocation dataset = loader.location(out);
        autotune.rejectShards(spec, dataset);
        if (dataset.isShards()) { // written by stoker ingest
            if (compareSampling) {
                throw usageError("--compare-sampling with a shard folder (expected: a dataset of video files)");
            }
            if (options.placement().splitAfter() != null) {
                throw usageError("--split-after: " + options.placement().splitAfter()
                        + " with a shard folder (expected: a dataset of video files; the shard loader runs in this process)");
            }
            if (mode.onGpu()) {
                throw new ParameterException(spec.commandLine(), "--decode " + mode
                        + " with a shard folder (expected: a dataset of video files; shards decode on the CPU)");
            }
            return ShardBench.run(out, spec, new BenchDevice(deviceSpec, decode, mode, out), dataset, options, batches,
                    files.json, files.trace, storage.readAhead(spec), storage);
        }
        Dataset data = dataset.openVideos(spec);
        if (compareSampling) {
            if (rounds < 1 || !device.equals("cpu") || mode.onGpu() || options.placement().splitAfter() != null) {
                throw usageError("--compare-sampling with --rounds " + rounds + ", --device " + device + ", --split-after "
                        + options.placement().splitAfter() + " (expected: --rounds 1+, on the CPU, in this process)");
            }
            try {
                return SamplingBench.run(out, dataset.name(), data, options, rounds, batches, files.json);
            } catch (IllegalArgumentException e) {
                throw usageError("--compare-sampling: " + e.getMessage());
            }
        }
        int cores = Runtime.getRuntime().availableProcessors();
        TraceRecorder recorder = files.traceRecorder();
        DeliveredClips delivered = new DeliveredClips(REFERENCE_CLIPS); // what the reference decodes again
        double loadAtStart = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        MemoryTimeline memory = new MemoryTimeline(batches);
        SteadyStateRun run = SteadyStateRun.settings(batches).memory(memory).consumerStep(storage.consumerMillis).start();
        // Ctrl-C (the live line says it stops the run) ends the measuring, not the command: the figures of the
        // batches so far are printed and written, and the JVM exits once they are.
        CountDownLatch reported = new CountDownLatch(1);
        ShutdownHook onCtrlC = ShutdownHook.add("stoker-bench-shutdown", () -> {
            run.stop();
            if (!run.driving()) {
                return;   // the batches were all taken (a reference, headspace or ceiling run now): exit at once
            }
            System.err.println("stoker bench: stopping after the batch under way; the figures so far follow");
            try {
                reported.await(STOPPED_REPORT_GRACE_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (onCtrlC) {
            PipelineStats stats;
            List<Failure> failures;
            long decodedFrames;
            long decodedClips;
            ClipStartStats startStats;
            PipelineConfig effective;
            BenchWatch watch = new BenchWatch(dashboardPort, publishPort, files.report != null, out);
            BenchDevice gpu = new BenchDevice(deviceSpec, decode, mode, out);
            try (ClipLoader<? extends LoadedBatch> loader = gpu.openLoader(spec, dataset, options,
                    Opening.defaults().tracedBy(recorder));
                 DeliveredClipLog clipLog = DeliveredClipLog.open(clipsOut)) {
                effective = loader.pipeline().config();
                if (saveConfig != null && !autotune.enabled) {
                    // With --autotune the file is the tuned config, written at the end: a run stopped early leaves no
                    // file rather than the start config under the tuned one's name.
                    OutputFiles.write("--save-config", saveConfig, options.toBuilder().config(effective).build().toJson());
                    out.println("wrote the config to " + saveConfig);
                }
                try (BenchWatch.Watching watching = watch.watch(loader.pipeline(), run::samples);
                     LiveStatsView view = LiveStatsView.start(loader.pipeline(), run::samples, 0, out,
                        LiveStatsView.stdoutIsTerminal(), Duration.ofSeconds(1));
                     AutoCloseable tuning = autotune.start(spec, BenchDevice.cpuLoader(loader), out)) { // null without --autotune
                    run.drive(loader, (index, b) -> {
                        delivered.accept(index, b);
                        clipLog.batch(index, b.clips());
                    });
                }
                effective = autotune.finish(out, loader.pipeline(), effective, options, saveConfig); // the tuned config, if tuned
                stats = loader.stats();
                failures = loader.failures();
                quarantineLine(out, BenchDevice.cpuLoader(loader));
                decodedFrames = loader.decodedFrames();
                decodedClips = loader.decodedClips();
                startStats = loader.startStats();
                gpu.reportDecoding(loader);
            }
            SteadyStateRun.Figures figures = run.finish();
            boolean stopped = run.stopped();
            if (stopped) {
                out.printf(Locale.ROOT, "stopped after %d batches (Ctrl-C or a kill): the figures are theirs; no"
                        + " reference or headspace run%n", figures.batches());
            }
            BenchResult.Memory memoryReadings = memory.finish();
            Yardsticks yardsticks = noReference || stopped ? Yardsticks.NONE
                    : Yardsticks.measure(delivered, figures.firstBatchSeconds(), options, cores, ceiling, out);
            double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();

            HeadspaceResult headspace = null;
            if (headspaceStepMillis != null && !stopped) {
                out.printf(Locale.ROOT, "headspace: a %.0f ms synthetic step with the loader, then on %d cached batches...%n",
                        headspaceStepMillis, HEADSPACE_CACHED);
                out.flush();
                try (HostBatchLoader again = dataset.open(spec, options, Opening.defaults())) {
                    headspace = Headspace.of(new SyntheticStep(headspaceStepMillis), new ClipBatchCache())
                            .warmupSteps(3).measuredSteps(HEADSPACE_STEPS).cachedBatches(HEADSPACE_CACHED)
                            .samplesPerBatch(TensorBatch::samples)
                            .run(again.pipeline());
                }
            }

            BenchResult result = BenchResult.of(dataset.name(), data.size(), cores, figures, decodedFrames, decodedClips,
                    options, effective, stats, failures, memoryReadings, yardsticks, headspace,
                    new double[] {loadAtStart, loadAtEnd}, ClipStartReport.of(startStats,
                            options.clip().maxLeadFrames() < 0 || stopped ? null : EligibleStarts.scan(data, options, ELIGIBLE_SCAN_VIDEOS)));
            out.print(result.summary());
            out.flush();   // the figures stand even if a file below cannot be written
            OutputFiles.json(out, files.json, result);
            OutputFiles.trace(out, files.trace, recorder);
            if (files.report != null) {
                try {
                    BenchReportWriter.write(files.report, OutputFiles.JSON.valueToTree(result), watch.series());
                } catch (IOException e) {
                    throw new UncheckedIOException("--report: cannot write " + files.report + " (" + CliErrors.describe(e) + ")", e);
                }
                out.println("wrote report to " + files.report);
            }
            out.flush();
            return figures.batches() == 0 ? 1 : ExitCode.OK;
        } finally {
            reported.countDown();   // a running hook waits for it
        }
    }

    /** What the quarantine held and spared, when it held anything. */
    private static void quarantineLine(PrintWriter out, VideoLoader loader) {
        if (loader == null || loader.quarantine().entries().isEmpty()) {
            return;
        }
        dev.stoker.video.loader.Quarantine q = loader.quarantine();
        String from = q.file() == null ? "this run only; --quarantine FILE keeps them"
                : q.fromFile() + " read from " + q.file() + ", left out of the dataset";
        out.printf(Locale.ROOT, "quarantine: %d files (%s), %d videos that failed in this run skipped before fetch%n",
                q.entries().size(), from, loader.quarantineSkips());
    }
}
