package dev.stoker.cli;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.store.ShardDataset;
import dev.stoker.tune.Headspace;
import dev.stoker.tune.HeadspaceResult;
import dev.stoker.tune.ModelStep;
import dev.stoker.tune.TensorBatch;
import dev.stoker.tune.TrainingStep;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code stoker headspace}: is training waiting for data, and how much faster could it go with faster loading? */
@Command(name = "headspace",
        header = "Is training waiting for data? The step time with the loader vs on cached batches.",
        mixinStandardHelpOptions = true,
        description = {
                "Runs a training step on batches from the video loader, then on copies of the",
                "first batches replayed from memory (data instantly there), and reports:",
                "  the compute floor: step time on cached data;",
                "  the achieved step time with the loader, waiting for the next batch included;",
                "  the share of it spent waiting for data;",
                "  the headspace: achieved / floor, how many times faster training would run",
                "  with a loader fast enough that takes nothing from the step (and samples/s",
                "  now and at that ceiling).",
                "",
                "The step is a synthetic one (--step-ms: fixed CPU work, calibrated to about",
                "MS ms on an idle core), your own class (--step-class), or a real model's training",
                "step (--model r3d: R3D-18 in DJL, as 'stoker train' runs it). A CPU-bound step",
                "competes with decoding for the cores (on 2 cores, noticeably): that is real,",
                "and shows as a step that runs slower with the loader than on cached data.",
                "",
                "DATASET is a folder ROOT/<class>/<video>, a CSV manifest, WebDataset .tar archives or a shard",
                "folder written by 'stoker ingest', as for 'stoker bench'; without one, the demo dataset in",
                "$STOKER_CACHE (made once).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker headspace                                the demo dataset, a 50 ms step",
                "  stoker headspace DATA --model r3d --width 0.25  R3D-18 (DJL) as the step",
                "  stoker headspace DATA --step-ms 120 --batch 16 --json headspace.json",
                "  stoker headspace DATA --step-class my.Step --step-classpath step.jar",
                "  stoker headspace DATA --concurrency decode=3    do more decoders help?",
        })
final class HeadspaceCommand extends Subcommand {
    @Mixin
    LoaderOptionsMixin loader;

    @Mixin
    ModelOptions model; // --model r3d: a real model's training step (DJL), --width, --lr, --model-seed, --device

    @Option(names = "--steps", defaultValue = "30") int steps;
    @Option(names = "--warmup", defaultValue = "3") int warmup;
    @Option(names = "--cache", defaultValue = "8", paramLabel = "N") int cache;

    @Mixin
    StepOptions step; // --step-ms, --step-class, --step-classpath

    @Option(names = "--json", paramLabel = "FILE") Path json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = out();
        if (model.model != null && step.given() != null) {
            throw usageError("--model with " + step.given()
                    + " (expected: one step: a model, a class or a synthetic step)");
        }
        LoaderOptions options = loader.loaderOptions();
        LoaderOptionsMixin.requireCpuDecode(spec, options);
        Headspace<ClipBatch, TensorBatch> synthetic = model.model == null ? headspace(null) : null; // calibrated before decoding
        DatasetLocation dataset = loader.location(out);
        if (synthetic != null) {
            return run(out, synthetic, options, dataset);
        }
        try (ModelStep step = model.open(spec, classCount(dataset), options)) {
            out.println("step: " + step.description());
            return run(out, headspace(step), options, dataset);
        }
    }

    private int run(PrintWriter out, Headspace<ClipBatch, TensorBatch> headspace, LoaderOptions options,
                    DatasetLocation dataset) throws IOException {
        HeadspaceResult result;
        // Any loader of host batches: video files, or shards written by stoker ingest (local or remote).
        try (HostBatchLoader loader = dataset.open(spec, options, Opening.defaults())) {
            announce(out, dataset.name(), loader.sampler().samplesPerEpoch() + (dataset.isShards() ? " samples" : " videos"),
                    headspace, options);
            result = measure(headspace, loader);
        }
        out.println(result.summary());
        if (json != null) {
            OutputFiles.write("--json", json, result.toJson());
            out.println("wrote results to " + json);
        }
        out.flush();
        return ExitCode.OK;
    }

    private void announce(PrintWriter out, String dataset, String size, Headspace<ClipBatch, TensorBatch> headspace,
                          LoaderOptions options) {
        out.printf(Locale.ROOT, "%s: %s; loading %d batches of %d clips (%d to cache, %d warm-up, %d measured steps),"
                        + " then %d steps on the cached copies%n",
                dataset, size, headspace.batchesNeeded(), options.batch().size(), cache, warmup, steps, warmup + steps);
        out.flush();
    }

    /** The headspace of any loader of host batches, over its pipeline (which it waits on to go quiet). */
    private static HeadspaceResult measure(Headspace<ClipBatch, TensorBatch> headspace, HostBatchLoader loader) {
        return headspace.run(loader.pipeline());
    }

    /** The classes a model is built for: those of the shards or of the video files. */
    private int classCount(DatasetLocation dataset) throws IOException {
        if (dataset.isShards()) {
            try (ShardDataset shards = dataset.openShards()) {
                return shards.classNames().size();
            }
        }
        return dataset.openVideos(spec).classNames().size();
    }

    private Headspace<ClipBatch, TensorBatch> headspace(ModelStep modelStep) {
        TrainingStep<TensorBatch> trainingStep = modelStep != null ? modelStep : step.open(spec);
        try {
            return Headspace.of(trainingStep, new ClipBatchCache())
                    .warmupSteps(warmup).measuredSteps(steps).cachedBatches(cache).samplesPerBatch(TensorBatch::samples);
        } catch (IllegalArgumentException e) {
            throw usageError(CliErrors.asOption(e, Map.of("warmupSteps", "--warmup", "measuredSteps", "--steps",
                    "cachedBatches", "--cache")));
        }
    }
}
