package dev.stoker.cli;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.tune.Headspace;
import dev.stoker.tune.HeadspaceResult;
import dev.stoker.tune.ModelStep;
import dev.stoker.tune.TensorBatch;
import dev.stoker.tune.TrainingStep;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.loader.HostBatchLoader;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

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
                "  with a loader fast enough (and samples/s now and at that ceiling).",
                "",
                "The step is a synthetic one (--step-ms: fixed CPU work, calibrated to about",
                "MS ms on an idle core), your own class (--step-class), or a real model's training",
                "step (--model r3d: R3D-18 in DJL, as 'stoker train' runs it). A CPU-bound step",
                "competes with decoding for the cores (on 2 cores, noticeably): that is real,",
                "and shows as a step that runs slower with the loader than on cached data.",
                "",
                "DATASET is a folder ROOT/<class>/<video>, a CSV manifest or a shard folder written by",
                "'stoker ingest', as for 'stoker bench'; without one, the demo dataset in $STOKER_CACHE (made once).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker headspace                                the demo dataset, a 50 ms step",
                "  stoker headspace DATA --model r3d --width 0.25  R3D-18 (DJL) as the step, as 'stoker train' trains it",
                "  stoker headspace DATA --step-ms 120 --batch 16 --json headspace.json",
                "  stoker headspace DATA --step-class my.Step --step-classpath step.jar",
                "  stoker headspace DATA --concurrency decode=3    do more decoders help?",
        })
final class HeadspaceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    LoaderOptionsMixin loader;

    @Mixin
    ModelOptions model; // --model r3d: a real model's training step (DJL), --width, --lr, --model-seed, --device

    @Option(names = "--steps", defaultValue = "30", description = "Measured steps in each phase (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--warmup", defaultValue = "3", description = "Steps before measuring, in each phase (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--cache", defaultValue = "8", paramLabel = "N",
            description = "Batches copied and replayed for the compute floor; each is held in memory (default: ${DEFAULT-VALUE}).")
    int cache;

    @Option(names = "--step-ms", paramLabel = "MS",
            description = "A synthetic step of about MS ms of CPU work (default: 50 unless --step-class).")
    Double stepMillis;

    @Option(names = "--step-class", paramLabel = "CLASS",
            description = "Your step: a class implementing dev.stoker.tune.TrainingStep<TensorBatch> with a public no-arg constructor.")
    String stepClass;

    @Option(names = "--step-classpath", paramLabel = "PATH",
            description = "Jars or folders to load --step-class from, separated by ':' (';' on Windows).")
    String stepClasspath;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the result as JSON.")
    Path json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (model.model != null && (stepMillis != null || stepClass != null)) {
            throw new ParameterException(spec.commandLine(), "--model with " + (stepClass != null ? "--step-class" : "--step-ms")
                    + " (expected: one step: a model, a class or a synthetic step)");
        }
        LoaderOptions options = loader.loaderOptions(spec);
        Headspace<ClipBatch, TensorBatch> synthetic = model.model == null ? headspace(null) : null; // calibrated before decoding
        Path root = loader.datasetRoot(out);
        if (synthetic != null) {
            return run(out, synthetic, options, root);
        }
        try (ModelStep step = model.open(spec, classCount(root), options)) {
            out.println("step: " + step.description());
            return run(out, headspace(step), options, root);
        }
    }

    private int run(PrintWriter out, Headspace<ClipBatch, TensorBatch> headspace, LoaderOptions options, Path root)
            throws IOException {
        HeadspaceResult result;
        // Any loader of host batches: video files, or shards written by stoker ingest.
        if (ShardDataset.isShardDataset(root)) {
            try (ShardDataset shards = ShardDataset.open(root)) {
                announce(out, root, shards.size() + " samples", headspace, options);
                try (ShardLoader shardLoader = ShardLoader.open(shards, options)) {
                    result = measure(headspace, shardLoader);
                }
            }
        } else {
            Dataset data = LoaderOptionsMixin.openDataset(spec, root);
            announce(out, root, data.size() + " videos", headspace, options);
            try (VideoLoader videoLoader = VideoLoader.open(data, options)) {
                result = measure(headspace, videoLoader);
            }
        }
        out.println(result.summary());
        if (json != null) {
            try {
                Files.writeString(json, result.toJson());
            } catch (IOException e) {
                throw new IOException("--json: cannot write " + json + " (" + CliErrors.describe(e) + ")", e);
            }
            out.println("wrote results to " + json);
        }
        out.flush();
        return ExitCode.OK;
    }

    private void announce(PrintWriter out, Path root, String size, Headspace<ClipBatch, TensorBatch> headspace,
                          LoaderOptions options) {
        out.printf(Locale.ROOT, "%s: %s; loading %d batches of %d clips (%d to cache, %d warm-up, %d measured steps),"
                        + " then %d steps on the cached copies%n",
                root, size, headspace.batchesNeeded(), options.batch().size(), cache, warmup, steps, warmup + steps);
        out.flush();
    }

    /** The headspace of any loader of host batches, over its pipeline (which it waits on to go quiet). */
    private static HeadspaceResult measure(Headspace<ClipBatch, TensorBatch> headspace, HostBatchLoader loader) {
        return headspace.run(loader.pipeline());
    }

    /** The classes a model is built for: those of the shard dataset or of the video dataset at {@code root}. */
    private int classCount(Path root) throws IOException {
        if (ShardDataset.isShardDataset(root)) {
            try (ShardDataset shards = ShardDataset.open(root)) {
                return shards.classNames().size();
            }
        }
        return LoaderOptionsMixin.openDataset(spec, root).classNames().size();
    }

    private Headspace<ClipBatch, TensorBatch> headspace(ModelStep modelStep) {
        if (stepMillis != null && stepClass != null) {
            throw new ParameterException(spec.commandLine(), "--step-ms and --step-class: both given (expected: one of them)");
        }
        if (stepMillis != null && !(stepMillis > 0)) {
            throw new ParameterException(spec.commandLine(), "--step-ms: " + stepMillis + " (expected: > 0)");
        }
        TrainingStep<TensorBatch> step = modelStep != null ? modelStep : stepClass != null ? loadStep(stepClass)
                : new SyntheticStep(stepMillis != null ? stepMillis : 50);   // calibrated now, before decoding starts
        try {
            return Headspace.of(step, new ClipBatchCache())
                    .warmupSteps(warmup).measuredSteps(steps).cachedBatches(cache).samplesPerBatch(TensorBatch::samples);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage()
                    .replace("warmupSteps:", "--warmup:").replace("measuredSteps:", "--steps:").replace("cachedBatches:", "--cache:");
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    /** Loads {@code --step-class} by name; every way it can be wrong is a usage error that says what was expected. */
    @SuppressWarnings("unchecked")
    private TrainingStep<TensorBatch> loadStep(String name) {
        String expected = " (expected: a public class implementing dev.stoker.tune.TrainingStep<TensorBatch> with a public no-arg constructor)";
        Class<?> type;
        try {
            type = Class.forName(name, true, classLoader());
        } catch (ClassNotFoundException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: no class " + name + " on the class path"
                    + (stepClasspath == null ? " (add its jar or folder with --step-classpath)" : " or in --step-classpath " + stepClasspath));
        } catch (LinkageError e) {
            throw new ParameterException(spec.commandLine(), "--step-class: cannot load " + name + ": " + CliErrors.describe(e));
        }
        if (!TrainingStep.class.isAssignableFrom(type)) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " does not implement dev.stoker.tune.TrainingStep" + expected);
        }
        Type batchType = batchType(type);
        if (batchType instanceof Class<?> c && !c.isAssignableFrom(TensorBatch.class)) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " is a TrainingStep<" + c.getSimpleName()
                    + ">, but the loader hands it TensorBatch" + expected);
        }
        if (Modifier.isAbstract(type.getModifiers())) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " is abstract" + expected);
        }
        try {
            return (TrainingStep<TensorBatch>) type.getConstructor().newInstance();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " has no public no-arg constructor" + expected);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("--step-class: " + name + "'s constructor failed: " + CliErrors.describe(e.getCause()), e.getCause());
        } catch (InstantiationException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: cannot instantiate " + name + expected);
        }
    }

    /** The class's type argument to TrainingStep, when it names one directly (null otherwise). */
    private static Type batchType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Type i : c.getGenericInterfaces()) {
                if (i instanceof ParameterizedType p && p.getRawType() == TrainingStep.class) {
                    return p.getActualTypeArguments()[0];
                }
            }
        }
        return null;
    }

    private ClassLoader classLoader() {
        ClassLoader parent = HeadspaceCommand.class.getClassLoader();
        if (stepClasspath == null || stepClasspath.isBlank()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : stepClasspath.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            Path p = Path.of(entry);
            if (!Files.exists(p)) {
                throw new ParameterException(spec.commandLine(), "--step-classpath: " + p + " does not exist (expected: jars or folders)");
            }
            try {
                urls.add(p.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new ParameterException(spec.commandLine(), "--step-classpath: " + p + ": " + e.getMessage());
            }
        }
        return new URLClassLoader("step", urls.toArray(URL[]::new), parent);
    }
}
