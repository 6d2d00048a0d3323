package dev.stoker.tune;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.StageOption;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialRunner;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Pipelines with known optima, whose work is parking (not CPU), so that their throughput is a matter of
 * concurrency more than of how loaded the machine is. Not wholly: a park ends when the thread is scheduled
 * again, and on the 2-core VM a 10 ms park woke 0.1 ms late at the median (quiet; 1-2% of the task, 6% of the
 * consumer's 4 ms) but up to 25 ms late at the 99th percentile and 100 ms at worst with two busy loops beside
 * it, and the host takes the VM's cores at times (steal time 0-50%), when every thread wakes late for a while.
 * Measurements leave out the slices such a stretch hit ({@link TickRate}), and the tests compare configs
 * measured at the same time ({@link #sideBySide}). The pipelines:
 * <ul>
 *   <li>{@code LOCK}: decode's per-item time rises sharply above 3 concurrent tasks (a shared codec lock
 *       whose cost grows with waiters, like FFmpeg's codec_mutex): best decode=3, fetch>=2 (~500/s);</li>
 *   <li>{@code LINEAR}: work (10 ms) scales linearly: best work=8 (the range's top), read>=2 (~800/s);</li>
 *   <li>{@code MEMORY}: copy holds a shared memory bus 2 ms per item (and longer when more than 4 thrash
 *       it) after 6 ms of its own: best copy=4 (~480/s);</li>
 *   <li>{@code CONSUMER}: the consumer takes 4 ms per item; work (10 ms, jittered) needs 3+ workers to keep
 *       up: best is the consumer's 250/s.</li>
 * </ul>
 */
final class SyntheticPipelines {
    private SyntheticPipelines() { }

    enum Kind {
        LOCK("fetch", "decode"), LINEAR("read", "work"), MEMORY("prep", "copy"), CONSUMER("prep", "work");

        final String first;
        final String second;

        Kind(String first, String second) {
            this.first = first;
            this.second = second;
        }

        SearchSpace space() {
            return SearchSpace.of(Knob.linear(concurrency(first), 1, 8), Knob.linear(concurrency(second), 1, 8),
                    Knob.log(StageOption.QUEUE_CAPACITY.pathFor(second), 1, 32), Knob.log("config.sinkCapacity", 1, 16));
        }

        /** {@link #start()} as the options a tuner starts from. */
        LoaderOptions startOptions() {
            return LoaderOptions.defaults().toBuilder().config(start()).build();
        }

        /** The pipeline config at {@code point} of {@link #space()}, from {@link #start()}. */
        PipelineConfig configAt(Map<String, Integer> point) {
            return space().optionsAt(startOptions(), point).config();
        }

        /** A bad place to start. */
        PipelineConfig start() {
            int c = this == LOCK ? 8 : 1;
            return new PipelineConfig(2, null, null, Map.of(first, StageConfig.EMPTY.withConcurrency(c),
                    second, StageConfig.EMPTY.withConcurrency(c)));
        }

        long consumerNanos() {
            return this == CONSUMER ? 4_000_000 : 0;
        }

        Pipeline<Integer> build(PipelineConfig config) {
            AtomicInteger active = new AtomicInteger();
            ReentrantLock bus = new ReentrantLock();
            AtomicLong seed = new AtomicLong();
            int[] next = {0};
            var b = Pipeline.from(() -> next[0]++);
            var staged = switch (this) {
                case LOCK -> b.map("fetch", (Integer x) -> park(x, 4_000_000))
                        .map("decode", (Integer x) -> {
                            int n = active.incrementAndGet();
                            try {
                                return park(x, 6_000_000L * (1 + Math.max(0, n - 3)));
                            } finally {
                                active.decrementAndGet();
                            }
                        });
                case LINEAR -> b.map("read", (Integer x) -> park(x, 2_000_000))
                        .map("work", (Integer x) -> park(x, 10_000_000));
                case MEMORY -> b.map("prep", (Integer x) -> park(x, 1_000_000))
                        .map("copy", (Integer x) -> {
                            park(x, 6_000_000);
                            int n = active.incrementAndGet();
                            bus.lock();
                            try {
                                return park(x, (long) (2_000_000 * (1 + 0.15 * Math.max(0, n - 4))));
                            } finally {
                                bus.unlock();
                                active.decrementAndGet();
                            }
                        });
                case CONSUMER -> b.map("prep", (Integer x) -> park(x, 1_000_000))
                        .map("work", (Integer x) -> {
                            SplittableRandom r = new SplittableRandom(seed.incrementAndGet());
                            return park(x, (long) (10_000_000 * (0.5 + r.nextDouble())));
                        });
            };
            return staged.config(config).build();
        }

        Map<String, Integer> point(int a, int b) {
            Map<String, Integer> p = new TreeMap<>();
            p.put(concurrency(first), a);
            p.put(concurrency(second), b);
            return p;
        }
    }

    /** The knob of {@code stage}'s concurrency. */
    static String concurrency(String stage) {
        return StageOption.CONCURRENCY.pathFor(stage);
    }

    /** Parks for {@code nanos} (parking returns early at times; this does not). */
    static <T> T park(T value, long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted");
            }
        }
        return value;
    }

    /**
     * Items per second the consumer got in [warmup, warmup + measure], as trial metrics: the rate over the
     * 50 ms slices that were not stalls of the (shared, loaded) machine ({@link TickRate}; not the median of
     * the slices' rates, which moves in steps of one item per slice: 4% at 250/s).
     */
    static TrialMetrics measure(Kind kind, PipelineConfig config, long warmupMillis, long measureMillis) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Pipeline<Integer> p = kind.build(config)) {
            Iterator<Integer> it = p.iterator();
            long start = System.nanoTime();
            long warm = start + warmupMillis * 1_000_000;
            int slices = (int) Math.max(1, measureMillis / 50);
            long sliceNanos = measureMillis * 1_000_000 / slices;
            long[] counts = new long[slices];
            while (true) {
                it.next();
                if (kind.consumerNanos() > 0) {
                    park(0, kind.consumerNanos());
                }
                long now = System.nanoTime();
                if (now >= warm) {
                    int slice = (int) ((now - warm) / sliceNanos);
                    if (slice >= slices) {
                        break;
                    }
                    counts[slice]++;
                }
            }
            long[] nanos = new long[slices];
            java.util.Arrays.fill(nanos, sliceNanos);
            double sps = TickRate.of(counts, nanos);
            long cpuNanos = 0;
            for (Thread t : p.liveThreads()) {
                cpuNanos += Math.max(0, threads.getThreadCpuTime(t.threadId()));
            }
            double cores = cpuNanos / (double) (System.nanoTime() - start);
            PipelineStats stats = p.stats();
            return TrialMetrics.of(sps, stats, cores, p.config());
        }
    }

    /**
     * The best of {@code rounds} measurements of {@code tuned} and of {@code best}, both measured at the same
     * time in each round, so that a stretch in which the shared machine slows every thread's wake-ups (which
     * lasts for hundreds of milliseconds under load) falls on both, not on one of them. Their work is parking,
     * so the two hardly compete for the cores. {@code {tuned, best}} in items per second.
     */
    static double[] sideBySide(Kind kind, PipelineConfig tuned, PipelineConfig best, int rounds) {
        double[] most = new double[2];
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (int i = 0; i < rounds; i++) {
                Future<Double> a = pool.submit(() -> measure(kind, tuned, 100, 500).samplesPerSecond());
                Future<Double> b = pool.submit(() -> measure(kind, best, 100, 500).samplesPerSecond());
                most[0] = Math.max(most[0], a.get());
                most[1] = Math.max(most[1], b.get());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return most;
    }

    /** An in-process trial runner over {@code kind}. */
    static TrialRunner runner(Kind kind, long warmupMillis, long measureMillis) {
        return trial -> measure(kind, trial.options().config(), warmupMillis, measureMillis);
    }

    /** The exhaustive grid over both stages' concurrency (1-6, 8), queue and sink as in the start config. */
    record Grid(double bestThroughput, Map<String, Integer> bestPoint, Map<Map<String, Integer>, Double> all) { }

    private static final Map<Kind, Grid> GRIDS = new ConcurrentHashMap<>();

    static Grid grid(Kind kind) {
        return GRIDS.computeIfAbsent(kind, SyntheticPipelines::runGrid);
    }

    private static Grid runGrid(Kind kind) {
        int[] values = {1, 2, 3, 4, 5, 6, 8};
        List<Map<String, Integer>> points = new ArrayList<>();
        for (int a : values) {
            for (int b : values) {
                points.add(kind.point(a, b));
            }
        }
        Map<Map<String, Integer>, Double> all = new TreeMap<>((x, y) -> x.toString().compareTo(y.toString()));
        try (ExecutorService pool = Executors.newFixedThreadPool(7)) {
            List<Future<Double>> results = new ArrayList<>();
            for (Map<String, Integer> p : points) {
                PipelineConfig c = kind.configAt(p);
                results.add(pool.submit(() -> measure(kind, c, 80, 250).samplesPerSecond()));
            }
            for (int i = 0; i < points.size(); i++) {
                all.put(points.get(i), results.get(i).get());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        Map.Entry<Map<String, Integer>, Double> best = all.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
        return new Grid(best.getValue(), best.getKey(), all);
    }
}
