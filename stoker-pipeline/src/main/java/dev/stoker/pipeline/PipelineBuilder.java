package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.BatchStage;
import dev.stoker.pipeline.internal.FilterStage;
import dev.stoker.pipeline.internal.FlatMapStage;
import dev.stoker.pipeline.internal.HostedStages;
import dev.stoker.pipeline.internal.MapStage;
import dev.stoker.pipeline.internal.PipelineRuntime;
import dev.stoker.pipeline.internal.RuntimeSettings;
import dev.stoker.pipeline.internal.SourceSpec;
import dev.stoker.pipeline.internal.StageFunction;
import dev.stoker.pipeline.internal.StageKind;
import dev.stoker.pipeline.internal.StageRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Describes a pipeline stage by stage; {@code T} is the type of the items the pipeline produces so
 * far, and every call returns a builder of the new item type, so types survive chaining. Builders are
 * immutable: each call returns a new one, and the same prefix can be built twice.
 *
 * <pre>{@code
 * try (Pipeline<List<Clip>> p = Pipeline.from(videos)
 *         .map("read", this::read, s -> s.concurrency(8).virtualThreads())
 *         .flatMap("split", this::clips)
 *         .map("parse", this::parse, s -> s.concurrency(3).ordered())
 *         .batch(32)
 *         .build(Sink.buffer(5))) {
 *     for (List<Clip> batch : p) train(batch);
 * }
 * }</pre>
 */
public final class PipelineBuilder<T> {
    /** Default sink buffer: two results ready ahead of the consumer. */
    public static final int DEFAULT_SINK_CAPACITY = 2;
    /** Default stall watchdog quiet period. */
    public static final long DEFAULT_STALL_TIMEOUT_MILLIS = 30_000;

    /**
     * One stage as described: its function's maker, and where the stage came from a {@link StageFactory},
     * the factory's class name and config (what {@link #spec()} prints and a child process rebuilds from).
     */
    private record StageSpec(String name, StageKind kind, Supplier<StageFunction> function, StageOptions options,
                             String factory, String factoryConfig) {
        StageSpec(String name, StageKind kind, Supplier<StageFunction> function, StageOptions options) {
            this(name, kind, function, options, null, null);
        }

        PipelineSpec.Stage describe() {
            return new PipelineSpec.Stage(name, kind, factory, factoryConfig);
        }
    }

    private final SourceSpec source;
    private final List<StageSpec> stages;
    private final Settings settings;

    /** Pipeline-wide settings that are not stages. */
    private record Settings(PipelineConfig config, FailureBudget failureBudget, TraceRecorder trace,
                            Long stallTimeoutMillis, Consumer<StallReport> onStall, int maxEpochs, boolean continuous,
                            StageHost host, int split) {
        Settings with(PipelineConfig c) {
            return new Settings(c, failureBudget, trace, stallTimeoutMillis, onStall, maxEpochs, continuous, host, split);
        }

        Settings isolated(StageHost h, int s) {
            return new Settings(config, failureBudget, trace, stallTimeoutMillis, onStall, maxEpochs, continuous, h, s);
        }
    }

    PipelineBuilder(SourceSpec source) {
        this(source, List.of(), new Settings(PipelineConfig.EMPTY, null, null, null, null, -1, false, null, 0));
    }

    private PipelineBuilder(SourceSpec source, List<StageSpec> stages, Settings settings) {
        this.source = source;
        this.stages = stages;
        this.settings = settings;
    }

    private <R> PipelineBuilder<R> with(StageSpec stage) {
        Objects.requireNonNull(stage.name(), "stage name");
        if (stage.name().isBlank() || stage.name().equals("source") || stage.name().equals("sink")) {
            throw new IllegalArgumentException("stage name: '" + stage.name() + "' (expected: a non-blank name other than 'source' and 'sink')");
        }
        for (StageSpec s : stages) {
            if (s.name().equals(stage.name())) {
                throw new IllegalArgumentException("stage name: '" + stage.name()
                        + "' is used twice (expected: unique names; configs apply by name)");
            }
        }
        List<StageSpec> next = new ArrayList<>(stages);
        next.add(stage);
        return new PipelineBuilder<>(source, List.copyOf(next), settings);
    }

    private static StageOptions options(Consumer<StageOptions> configure) {
        StageOptions options = new StageOptions();
        configure.accept(options);
        return options;
    }

    /** One in, one out. A {@code null} result drops the item. */
    public <R> PipelineBuilder<R> map(String name, Function<? super T, ? extends R> fn) {
        return map(name, fn, s -> { });
    }

    public <R> PipelineBuilder<R> map(String name, Function<? super T, ? extends R> fn, Consumer<StageOptions> options) {
        Objects.requireNonNull(fn, "fn");
        return with(new StageSpec(name, StageKind.MAP, () -> new MapStage(fn), options(options)));
    }

    /** One in, any number out, in the iterable's order. */
    public <R> PipelineBuilder<R> flatMap(String name, Function<? super T, ? extends Iterable<? extends R>> fn) {
        return flatMap(name, fn, s -> { });
    }

    public <R> PipelineBuilder<R> flatMap(String name, Function<? super T, ? extends Iterable<? extends R>> fn,
                                          Consumer<StageOptions> options) {
        Objects.requireNonNull(fn, "fn");
        return with(new StageSpec(name, StageKind.FLAT_MAP, () -> new FlatMapStage(fn), options(options)));
    }

    /** Keeps the items {@code predicate} accepts. */
    public PipelineBuilder<T> filter(String name, Predicate<? super T> predicate) {
        return filter(name, predicate, s -> { });
    }

    public PipelineBuilder<T> filter(String name, Predicate<? super T> predicate, Consumer<StageOptions> options) {
        Objects.requireNonNull(predicate, "predicate");
        return with(new StageSpec(name, StageKind.FILTER, () -> new FilterStage(predicate), options(options)));
    }

    /** Groups items into lists of {@code size}; the last, partial batch of each epoch is kept. */
    public PipelineBuilder<List<T>> batch(int size) {
        return batch(size, false);
    }

    /** Groups items into lists of {@code size}; with {@code dropLast}, a partial batch is dropped. */
    public PipelineBuilder<List<T>> batch(int size, boolean dropLast) {
        return batch("batch", size, dropLast);
    }

    public PipelineBuilder<List<T>> batch(String name, int size, boolean dropLast) {
        new BatchStage(size, dropLast); // validates
        return with(new StageSpec(name, StageKind.BATCH, () -> new BatchStage(size, dropLast), options(s -> { }), null,
                "{\"size\":" + size + ",\"dropLast\":" + dropLast + "}"));
    }

    // ---- stages from named factories: describable, and rebuildable in another process ----

    /**
     * A map stage whose function {@code factory} makes from {@code config}: the same as {@link #map(String, Function,
     * Consumer)} in this process, and the form a stage must take to run in a child process ({@link #isolate}).
     */
    public <R> PipelineBuilder<R> map(String name, Class<? extends StageFactory<? super T, ? extends R>> factory,
                                      String config, Consumer<StageOptions> options) {
        return with(factoryStage(name, StageKind.MAP, factory, config, options));
    }

    public <R> PipelineBuilder<R> map(String name, Class<? extends StageFactory<? super T, ? extends R>> factory,
                                      String config) {
        return map(name, factory, config, s -> { });
    }

    /** A flat-map stage made by {@code factory} from {@code config}; see {@link #map(String, Class, String, Consumer)}. */
    public <R> PipelineBuilder<R> flatMap(String name,
                                          Class<? extends StageFactory<? super T, ? extends Iterable<? extends R>>> factory,
                                          String config, Consumer<StageOptions> options) {
        return with(factoryStage(name, StageKind.FLAT_MAP, factory, config, options));
    }

    public <R> PipelineBuilder<R> flatMap(String name,
                                          Class<? extends StageFactory<? super T, ? extends Iterable<? extends R>>> factory,
                                          String config) {
        return flatMap(name, factory, config, s -> { });
    }

    /** A filter made by {@code factory} from {@code config}: the function returns whether to keep the item. */
    public PipelineBuilder<T> filter(String name, Class<? extends StageFactory<? super T, Boolean>> factory,
                                     String config, Consumer<StageOptions> options) {
        return with(factoryStage(name, StageKind.FILTER, factory, config, options));
    }

    public PipelineBuilder<T> filter(String name, Class<? extends StageFactory<? super T, Boolean>> factory, String config) {
        return filter(name, factory, config, s -> { });
    }

    private static StageSpec factoryStage(String name, StageKind kind, Class<?> factory, String config,
                                          Consumer<StageOptions> options) {
        Objects.requireNonNull(factory, "factory");
        if (!java.lang.reflect.Modifier.isPublic(factory.getModifiers())) {
            throw new IllegalArgumentException("stage '" + name + "' factory: " + factory.getName()
                    + " is not public (expected: a public class with a public no-arg constructor)");
        }
        try {
            factory.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("stage '" + name + "' factory: " + factory.getName()
                    + " has no public no-arg constructor (expected: one, so another process can make it)");
        }
        PipelineSpec.Stage described = new PipelineSpec.Stage(name, kind, factory.getName(), config == null ? "" : config);
        Supplier<StageFunction> function = () -> StageFunction.of(kind, described.createFunction());
        return new StageSpec(name, kind, function, options(options), factory.getName(), described.factoryConfig());
    }

    /**
     * Runs every stage added so far in {@code host} (a child JVM: {@code SubprocessOptions}); the stages added
     * after run here, on the host's outputs. The source stays here and is read here. Those stages must come
     * from {@link StageFactory factories}, or be a batch stage (one; after it, only maps and filters).
     */
    public PipelineBuilder<T> isolate(StageHost host) {
        Objects.requireNonNull(host, "host");
        if (settings.host() != null) {
            throw new IllegalStateException("isolate: the pipeline is already split after stage '"
                    + stages.get(settings.split() - 1).name() + "' (expected: one split)");
        }
        if (stages.isEmpty()) {
            throw new IllegalStateException("isolate: no stages to isolate (expected: isolate() after the stages to run in the host)");
        }
        String batchStage = null;
        for (StageSpec s : stages) {
            if (batchStage != null && s.kind() != StageKind.MAP && s.kind() != StageKind.FILTER) {
                throw new IllegalArgumentException("isolate: stage '" + s.name() + "' (" + s.kind() + ") follows batch stage '"
                        + batchStage + "' (expected: only maps and filters after the one batch stage of a child process)");
            }
            if (s.kind() == StageKind.BATCH) {
                batchStage = s.name();
            }
            if (!s.describe().reconstructible()) {
                throw new IllegalArgumentException("isolate: stage '" + s.name() + "' was given as code, which another"
                        + " process cannot rebuild (expected: a StageFactory class, e.g. map(\"" + s.name()
                        + "\", MyFactory.class, config))");
            }
        }
        return new PipelineBuilder<>(source, stages, settings.isolated(host, stages.size()));
    }

    /** The description of this pipeline: every stage with its kind and factory, and the effective knobs. */
    public PipelineSpec spec() {
        return new PipelineSpec(stages.stream().map(StageSpec::describe).toList(), effectiveConfig());
    }

    /** Re-reads an {@code Iterable} source epoch after epoch, forever; epoch ends are visible. */
    public PipelineBuilder<T> continuous() {
        return new PipelineBuilder<>(source, stages, new Settings(settings.config(), settings.failureBudget(),
                settings.trace(), settings.stallTimeoutMillis(), settings.onStall(), -1, true, settings.host(), settings.split()));
    }

    /** Re-reads an {@code Iterable} (or {@link EpochSource}) source for {@code count} epochs. */
    public PipelineBuilder<T> epochs(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("epochs: " + count + " (expected: 1+)");
        }
        return new PipelineBuilder<>(source, stages, new Settings(settings.config(), settings.failureBudget(),
                settings.trace(), settings.stallTimeoutMillis(), settings.onStall(), count, true, settings.host(), settings.split()));
    }

    /** Lays {@code config} over the settings given in code (and over earlier configs). */
    public PipelineBuilder<T> config(PipelineConfig config) {
        return new PipelineBuilder<>(source, stages, settings.with(settings.config().overriddenBy(config)));
    }

    /** Pipeline-wide failure budget over all source items; default: none beyond the stages'. */
    public PipelineBuilder<T> failureBudget(FailureBudget budget) {
        return new PipelineBuilder<>(source, stages, new Settings(settings.config(), Objects.requireNonNull(budget),
                settings.trace(), settings.stallTimeoutMillis(), settings.onStall(), settings.maxEpochs(), settings.continuous(),
                settings.host(), settings.split()));
    }

    /** Records a Chrome trace of every task and queue. */
    public PipelineBuilder<T> trace(TraceRecorder recorder) {
        return new PipelineBuilder<>(source, stages, new Settings(settings.config(), settings.failureBudget(),
                Objects.requireNonNull(recorder), settings.stallTimeoutMillis(), settings.onStall(), settings.maxEpochs(),
                settings.continuous(), settings.host(), settings.split()));
    }

    /**
     * The stall watchdog: after {@code quietPeriod} without progress while the consumer waits, report which
     * stage holds items and what its threads are doing. Default 30 s, printed to standard error.
     */
    public PipelineBuilder<T> stallWatchdog(Duration quietPeriod, Consumer<StallReport> onStall) {
        return new PipelineBuilder<>(source, stages, new Settings(settings.config(), settings.failureBudget(),
                settings.trace(), quietPeriod.toMillis(), Objects.requireNonNull(onStall), settings.maxEpochs(),
                settings.continuous(), settings.host(), settings.split()));
    }

    /** Names of the stages so far, in order. */
    public List<String> stageNames() {
        return stages.stream().map(StageSpec::name).toList();
    }

    /** The settings the pipeline would run with, every field filled in. */
    public PipelineConfig effectiveConfig() {
        return effectiveConfig(DEFAULT_SINK_CAPACITY);
    }

    private PipelineConfig effectiveConfig(int codeSinkCapacity) {
        PipelineConfig cfg = settings.config();
        Set<String> names = new HashSet<>(stageNames());
        for (String configured : cfg.stages().keySet()) {
            if (!names.contains(configured)) {
                throw new IllegalArgumentException("config names stage '" + configured
                        + "' but the pipeline has stages " + stageNames());
            }
        }
        Map<String, StageConfig> resolved = new LinkedHashMap<>();
        for (StageSpec s : stages) {
            StageConfig code = s.options().config;
            StageConfig settled = code.overriddenBy(cfg.stage(s.name())).settled();
            if (s.kind().sequential() && settled.concurrency() != 1) {
                throw new IllegalArgumentException("stage '" + s.name() + "' concurrency: " + settled.concurrency()
                        + " (expected: 1; a batch stage is sequential)");
            }
            resolved.put(s.name(), settled);
        }
        FailureBudget budget = cfg.failureBudget() != null ? cfg.failureBudget()
                : settings.failureBudget() != null ? settings.failureBudget() : FailureBudget.UNLIMITED;
        long stall = cfg.stallTimeoutMillis() != null ? cfg.stallTimeoutMillis()
                : settings.stallTimeoutMillis() != null ? settings.stallTimeoutMillis() : DEFAULT_STALL_TIMEOUT_MILLIS;
        int sink = cfg.sinkCapacity() != null ? cfg.sinkCapacity() : codeSinkCapacity;
        return new PipelineConfig(sink, budget, stall, resolved);
    }

    /** Starts the pipeline with the default sink buffer. */
    public Pipeline<T> build() {
        return build(Sink.buffer(DEFAULT_SINK_CAPACITY));
    }

    /** Starts the pipeline: threads run from here until {@link Pipeline#close()}. */
    public Pipeline<T> build(Sink sink) {
        PipelineConfig effective = effectiveConfig(sink.capacity());
        int split = settings.host() != null ? settings.split() : 0;
        List<StageRunner.Blueprint> blueprints = new ArrayList<>();
        for (StageSpec s : stages.subList(split, stages.size())) {
            blueprints.add(new StageRunner.Blueprint(s.name(), s.function(), effective.stage(s.name()),
                    s.options().executor, s.options().describer));
        }
        SourceSpec src = source;
        if (settings.continuous()) {
            src = source.epochMarkers() ? SourceSpec.epochs(source.epochs(), settings.maxEpochs())
                    : repeatable(source, settings.maxEpochs());
        }
        HostedStages hosted = null;
        if (settings.host() != null) {
            List<StageSpec> isolated = stages.subList(0, split);
            Map<String, StageConfig> isolatedConfig = new LinkedHashMap<>();
            isolated.forEach(s -> isolatedConfig.put(s.name(), effective.stage(s.name())));
            PipelineSpec spec = new PipelineSpec(isolated.stream().map(StageSpec::describe).toList(),
                    new PipelineConfig(effective.sinkCapacity(), effective.failureBudget(), effective.stallTimeoutMillis(),
                            isolatedConfig));
            SourceSpec inputs = src;
            hosted = settings.host().start(spec, inputs.epochs(), settings.trace());
            src = new SourceSpec(hosted.outputs(), inputs.epochMarkers(), "stages " + stageNames().subList(0, split)
                    + " in a " + settings.host().getClass().getSimpleName());
        }
        Consumer<StallReport> onStall = settings.onStall() != null ? settings.onStall()
                : report -> System.err.print(report.text());
        PipelineRuntime runtime = new PipelineRuntime(src, blueprints, new RuntimeSettings(effective, onStall, settings.trace(), hosted, BottleneckAnalysis::judge));
        runtime.start();
        return new Pipeline<>(runtime);
    }

    private static SourceSpec repeatable(SourceSpec source, int maxEpochs) {
        if (!source.description().equals("iterable")) {
            throw new IllegalStateException("a " + source.description()
                    + " source can be read once; use an Iterable or an EpochSource for epochs");
        }
        Iterable<?> items = source.epochs().epoch(0);
        return SourceSpec.repeat(items, maxEpochs);
    }
}
