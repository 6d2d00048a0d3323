package dev.stoker.cli;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.observe.internal.TrainReportWriter;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.tune.HeadspaceResult;
import dev.stoker.tune.ModelStep;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code stoker train}: trains a video model in Java (DJL) on the loader's batches, and says what held it back. */
@Command(name = "train",
        header = "Train a video model (DJL, PyTorch engine) on the loader's batches: loss, step time, data wait.",
        mixinStandardHelpOptions = true,
        description = {
                "Trains R3D-18 (--model r3d, torchvision's layout, channels times --width) on batches",
                "from the video loader (or the shard loader for a folder written by 'stoker ingest'),",
                "with every loader option of 'stoker bench'. A live line shows step, loss, samples/s",
                "and the share of time the loop waited for data; at the end: step time p50/p99,",
                "samples/s, the data-wait share, the first and last loss, and the headspace verdict:",
                "the same model stepped on cached batches (the compute floor) against the steps",
                "with the loader.",
                "",
                "DJL and libtorch (the 'stoker-djl' module, 112 MB) load only for this command and",
                "'stoker headspace --model'; ./stoker builds that module on first use.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker train                       demo dataset, R3D width 0.125, 100 steps",
                "  stoker train DATA --width 0.25 --steps 500 --lr 0.0005 --json train.json",
                "  stoker train DATA --trace t.json   train/wait slices beside the loader's",
                "  stoker train DATA --report t.html  loss and step time over the steps",
                "  stoker train shards/demo --concurrency decode=2",
                "                                     from shards written by stoker ingest",
                "  stoker train DATA --width 1 --device cuda:0",
                "                                     full R3D-18 on a GPU (a CUDA libtorch)",
        })
final class TrainCommand extends Subcommand {
    @Mixin
    LoaderOptionsMixin loader;

    @Mixin
    ModelOptions model;

    @Option(names = "--steps", defaultValue = "100") int steps;
    @Option(names = "--warmup", defaultValue = "3") int warmup;
    @Option(names = "--cache", defaultValue = "4", paramLabel = "N") int cache;
    @Option(names = "--floor-steps", defaultValue = "20", paramLabel = "N") int floorSteps;

    @Mixin
    RunFileOptions files; // --json, --trace, --report

    @Override
    public Integer call() throws Exception {
        files.checkWritable();
        PrintWriter out = out();
        if (steps < 1) {
            throw usageError("--steps: " + steps + " (expected: 1+)");
        }
        if (warmup < 0 || cache < 1 || floorSteps < 0) {
            throw usageError("--warmup " + warmup + ", --cache " + cache + ", --floor-steps "
                    + floorSteps + " (expected: 0+, 1+, 0+)");
        }
        if (model.model == null) {
            model.model = "r3d";
        }
        LoaderOptions options = loader.loaderOptions();
        LoaderOptionsMixin.requireCpuDecode(spec, options);
        DatasetLocation dataset = loader.location(out);
        String where = dataset.name();
        boolean shards = dataset.isShards();
        if (shards && options.placement().splitAfter() != null) {
            throw usageError("--split-after: " + options.placement().splitAfter()
                    + " with a shard folder (expected: a dataset of video files; the shard loader runs in this process)");
        }
        TraceRecorder recorder = files.traceRecorder();
        TrainLoop loop;
        TrainResult result;
        // The loader (video files or shards) first: the model is built for its classes.
        HostBatchLoader batches = dataset.open(spec, options, Opening.defaults().tracedBy(recorder));
        int classes = batches.classNames().size();
        try (ModelStep step = openModel(batches, classes, options)) {
            PipelineStats stats;
            PipelineConfig config;
            try (batches) { // stopped before the floor is measured
                out.printf(Locale.ROOT, "%s: %d samples, %d classes; training %s for %d steps of %d clips%n",
                        where, batches.sampler().samplesPerEpoch(), classes, step.description(), steps, options.batch().size());
                out.flush();
                loop = new TrainLoop(step, recorder);
                loop.train(batches.iterator(), steps, cache, out, LiveStatsView.stdoutIsTerminal());
                stats = batches.pipeline().stats();
                config = batches.pipeline().config();
            }
            if (loop.stepsDone() == 0) {
                out.println("no batch came from the loader: nothing trained");
                out.flush();
                return 1;
            }
            HeadspaceResult headspace = null;
            if (floorSteps > 0) {
                out.printf(Locale.ROOT, "the compute floor: %d steps on %d cached batches...%n", floorSteps, Math.min(cache, loop.stepsDone()));
                out.flush();
                long[] floor = loop.floor(floorSteps);
                headspace = loop.headspace(warmup, floor, stats.verdict() == null ? null : stats.verdict().line());
            } else {
                loop.floor(0);
            }
            result = new TrainResult(where, step.description(), options.batch().size(), loop.steps(warmup), headspace,
                    stats.failures(), stats.failuresByReason(),
                    config);
        }
        out.print(result.summary());
        OutputFiles.json(out, files.json, result);
        OutputFiles.trace(out, files.trace, recorder);
        if (files.report != null) {
            OutputFiles.write("--report", files.report, TrainReportWriter.html(OutputFiles.JSON.valueToTree(result)));
            out.println("wrote report to " + files.report);
        }
        out.flush();
        return ExitCode.OK;
    }

    /** The model for {@code classes} classes; the loader is closed if it cannot be made. */
    private ModelStep openModel(HostBatchLoader batches, int classes, LoaderOptions options) {
        try {
            return model.open(spec, classes, options);
        } catch (RuntimeException | Error e) {
            batches.close();
            throw e;
        }
    }
}
