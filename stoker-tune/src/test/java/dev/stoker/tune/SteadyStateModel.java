package dev.stoker.tune;

import dev.stoker.pipeline.Bottleneck;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.SyntheticPipelines.Kind;
import dev.stoker.tune.internal.TrialMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntToDoubleFunction;
import java.util.random.RandomGenerator;

/**
 * The pipelines of {@link SyntheticPipelines} as models: their throughput, and the signals a tuner reads, as functions
 * of the config, with no clock and no threads. The tuners' tests run on these, so that a test decides the same way on
 * any machine under any load; the pipelines themselves, timed, are a benchmark ({@code SyntheticOptimaBenchmark}).
 *
 * <p>A stage of {@code c} workers whose task takes {@code t(n)} ms with {@code n} tasks active delivers at most
 * {@code c / t(c)} items/s (all workers busy: a shared lock or bus makes every task slower); the pipeline delivers the
 * soft minimum of its stages' and the consumer's rates (two parts of equal rate deliver 2^(-1/8) = 92% of it, as
 * stages with jitter and finite queues between them do). The part with the lowest rate limits: its workers are busy,
 * the stages before it wait for room, those after it wait for input, and a consumer that limits hardly waits.
 */
final class SteadyStateModel {
    private SteadyStateModel() { }

    /** How sharply the slowest part limits (the exponent of the soft minimum). */
    private static final double SHARPNESS = 8;
    /** Cores a busy worker uses when its work is parking (the synthetic pipelines'): the engine's hand-offs only. */
    static final double PARKING_CORES_PER_BUSY_WORKER = 0.02;

    /** One stage: its task time with {@code active} tasks in flight, and its rate with all its workers busy. */
    record StageModel(String name, DoubleUnaryOperator taskMillis, IntToDoubleFunction fullRate) {
        static StageModel fixed(String name, double millis) {
            return new StageModel(name, n -> millis, c -> c * 1000.0 / millis);
        }

        /** A task time that grows with the tasks active (a shared lock); all workers busy at full rate. */
        static StageModel contended(String name, DoubleUnaryOperator taskMillis) {
            return new StageModel(name, taskMillis, c -> c * 1000.0 / taskMillis.applyAsDouble(c));
        }
    }

    /**
     * A model pipeline: its stages in order, the consumer's time an item, the cores a busy worker uses, and the
     * machine's cores (what the process can use at most).
     */
    record Model(List<StageModel> stages, double consumerMillis, double coresPerBusyWorker, double machineCores) {
        /** Work that parks (the synthetic pipelines'): a busy worker uses little CPU, and the machine never runs out. */
        static Model parking(List<StageModel> stages, double consumerMillis) {
            return new Model(stages, consumerMillis, PARKING_CORES_PER_BUSY_WORKER, Double.POSITIVE_INFINITY);
        }
    }

    /** One stage at the operating point. */
    record StageState(String name, int concurrency, double busy, double idle, double backPressured, double taskMillis,
                      int queueCapacity, double queueFull, double queueEmpty) { }

    /** The pipeline at its operating point. */
    record Steady(double throughput, double consumerWaitShare, double cores, double sinkFull, List<StageState> stages) {
        boolean consumerBound() {
            return Bottleneck.consumerBound(consumerWaitShare);
        }
    }

    /** The model of {@code kind}: the work of {@link SyntheticPipelines.Kind#build}, as task times. */
    static Model of(Kind kind) {
        return switch (kind) {
            case LOCK -> Model.parking(List.of(StageModel.fixed("fetch", 4),
                    StageModel.contended("decode", n -> 6 * (1 + Math.max(0, n - 3)))), 0);
            case LINEAR -> Model.parking(List.of(StageModel.fixed("read", 2), StageModel.fixed("work", 10)), 0);
            // copy: 6 ms of its own, then 2 ms on a bus one task holds at a time (longer when more than 4 thrash it)
            case MEMORY -> Model.parking(List.of(StageModel.fixed("prep", 1), new StageModel("copy",
                    n -> 6 + bus(n), c -> 1000 * Math.min(c / (6 + bus(c)), 1 / bus(c)))), 0);
            case CONSUMER -> Model.parking(List.of(StageModel.fixed("prep", 1), StageModel.fixed("work", 10)),
                    kind.consumerNanos() / 1e6);
        };
    }

    private static double bus(double tasks) {
        return 2 * (1 + 0.15 * Math.max(0, tasks - 4));
    }

    /** {@code model} run with {@code config}: throughput and signals, with no noise. */
    static Steady steady(Model model, PipelineConfig config) {
        List<StageModel> stages = model.stages();
        int count = stages.size();
        double[] rate = new double[count + 1];
        int[] workers = new int[count];
        for (int i = 0; i < count; i++) {
            workers[i] = concurrency(config, stages.get(i).name());
            rate[i] = stages.get(i).fullRate().applyAsDouble(workers[i]);
        }
        rate[count] = model.consumerMillis() > 0 ? 1000 / model.consumerMillis() : Double.POSITIVE_INFINITY;
        int limit = 0;
        double sum = 0;
        for (int i = 0; i <= count; i++) {
            if (rate[i] < rate[limit]) {
                limit = i;
            }
            sum += Math.pow(rate[i], -SHARPNESS);
        }
        double x = Math.pow(sum, -1 / SHARPNESS);
        boolean consumerLimits = limit == count;
        double consumerWait = Math.max(0.01, 1 - x * model.consumerMillis() / 1000);
        List<StageState> out = new ArrayList<>();
        double busyWorkers = 0;
        for (int i = 0; i < count; i++) {
            StageModel s = stages.get(i);
            int c = workers[i];
            double task = i == limit ? c * 1000 / rate[i] : activeTaskMillis(s, c, x);
            double busy = Math.min(1, x * task / 1000 / c);
            busyWorkers += busy * c;
            boolean beforeLimit = consumerLimits || i < limit;
            // the queue before the limit fills (what feeds it is faster); after it, a stage waits on an empty one
            boolean queueFills = consumerLimits || i <= limit;
            StageConfig sc = config.stage(s.name());
            out.add(new StageState(s.name(), c, busy, beforeLimit ? 0 : 1 - busy, beforeLimit ? 1 - busy : 0, task,
                    sc.queueCapacity() == null ? 0 : sc.queueCapacity(), queueFills ? 0.9 : 0, queueFills ? 0.02 : 1 - busy));
        }
        double cores = Math.min(model.machineCores(), model.coresPerBusyWorker() * busyWorkers);
        // a consumer that sets the pace finds the sink full; one that waits, empty
        return new Steady(x, consumerWait, cores, Bottleneck.consumerBound(consumerWait) ? 0.9 : 0.02, out);
    }

    /** The task time with the tasks active that {@code rate} items/s keep in flight (n = rate x t(n), at most c). */
    private static double activeTaskMillis(StageModel s, int workers, double rate) {
        double active = 0;
        for (int i = 0; i < 100; i++) {
            active = Math.min(workers, rate * s.taskMillis().applyAsDouble(active) / 1000);
        }
        return s.taskMillis().applyAsDouble(active);
    }

    private static int concurrency(PipelineConfig config, String stage) {
        Integer c = config.stage(stage).concurrency();
        return c == null ? 1 : c;
    }

    /** The throughput of {@code kind} with {@code config}, with no noise. */
    static double throughput(Kind kind, PipelineConfig config) {
        return steady(of(kind), config).throughput();
    }

    /**
     * The best point of the grid over both stages' concurrency (1-6, 8; queue and sink as in the start config), as
     * {@link SyntheticPipelines#grid} measures it, computed.
     */
    static Map<String, Integer> gridBest(Kind kind) {
        int[] values = {1, 2, 3, 4, 5, 6, 8};
        Map<String, Integer> best = null;
        double most = -1;
        for (int a : values) {
            for (int b : values) {
                Map<String, Integer> point = kind.point(a, b);
                double x = throughput(kind, kind.configAt(point));
                if (x > most) {
                    most = x;
                    best = point;
                }
            }
        }
        return best;
    }

    /** {@code steady} as a trial's metrics, its throughput times {@code noise}. */
    static TrialMetrics metrics(Steady steady, double noise, PipelineConfig config) {
        List<TrialMetrics.Stage> stages = new ArrayList<>();
        stages.add(new TrialMetrics.Stage("source", 1, 0.01, 0, 0.99, 0, 0, 0, 0, 0));
        String busiest = "";
        double most = -1;
        for (StageState s : steady.stages()) {
            stages.add(new TrialMetrics.Stage(s.name(), s.concurrency(), s.busy(), s.idle(), s.backPressured(), s.taskMillis(),
                    s.taskMillis(), s.queueCapacity(), s.queueFull(), s.queueEmpty()));
            if (s.busy() > most) {
                most = s.busy();
                busiest = s.name();
            }
        }
        String bottleneck = steady.consumerBound() ? "consumer" : busiest;
        String state = steady.consumerBound() ? "consumer-bound"
                : Bottleneck.saturated(most) ? "saturated" : "busiest";
        return new TrialMetrics(steady.throughput() * noise, bottleneck, state, "bottleneck: " + bottleneck + " (" + state + ")",
                1 - steady.consumerWaitShare(), steady.sinkFull(), stages, steady.cores(), 0.0, config);
    }

    /** {@code steady} as the online tuner's measurement over {@code windows} windows of {@code seconds} in all. */
    static MeasuredWindow window(Steady steady, double noise, double seconds, long windows) {
        Map<String, Double> busy = new HashMap<>();
        Map<String, Double> task = new HashMap<>();
        Map<String, Integer> concurrency = new HashMap<>();
        Map<String, Double> queueEmpty = new HashMap<>();
        for (StageState s : steady.stages()) {
            busy.put(s.name(), s.busy());
            task.put(s.name(), s.taskMillis());
            concurrency.put(s.name(), s.concurrency());
            queueEmpty.put(s.name(), s.queueEmpty());
        }
        double throughput = steady.throughput() * noise;
        return new MeasuredWindow(seconds, throughput, steady.consumerWaitShare(), steady.cores(), busy, task, concurrency,
                queueEmpty, steady.sinkFull(), Math.round(throughput * seconds), windows);
    }

    /** A measurement's noise: a factor around 1 with a standard deviation of {@code sigma}, from {@code random}. */
    static double noise(RandomGenerator random, double sigma) {
        return Math.max(0.5, 1 + sigma * random.nextGaussian());
    }
}
