package dev.stoker.tune;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.StageStats;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The online autotuner: adjusts stage concurrency and the sink buffer of a running pipeline
 * ({@link Pipeline#reconfigure}) to raise its throughput, within a CPU and a RAM budget.
 *
 * <pre>{@code
 * try (Pipeline<Batch> p = builder.build();
 *      Autotune tuning = Autotune.online(p, AutotuneBudget.defaults().withCores(6))) {
 *     for (Batch b : p) train(b);
 *     tuning.changes().forEach(System.out::println);
 * }
 * }</pre>
 *
 * <p>It works in windows ({@link AutotuneBudget#window()}): measure the throughput at the sink (the
 * baseline), read per-stage busy shares and task times from the stats of the same span, then probe one
 * change: one worker more for the saturated stage; one fewer when its task time grew with its concurrency
 * (contention) or it is at its limit; a larger sink when the consumer waits; one fewer for a stage that
 * mostly idles. After a settling window it measures again: an increase is kept only when it raised
 * throughput by more than 5%, a decrease when it lost less than 3% (hysteresis: fewer resources win ties);
 * otherwise it steps back. A change that did not pay, and the way back from one that did, cool down
 * (a probe that fails again waits twice as long), so the tuner settles instead of oscillating. Every
 * change is in {@link #changes()}, in the pipeline's stats and config, and in its trace.
 */
public final class Autotune implements AutoCloseable {
    static final double KEEP_INCREASE = 0.05;
    static final double KEEP_DECREASE = 0.03;
    private static final int BASE_COOLDOWN_WINDOWS = 6;
    private static final int MAX_COOLDOWN_WINDOWS = 64;

    private final Pipeline<?> pipeline;
    private final AutotuneBudget budget;
    private final Thread thread;
    private final List<AutotuneChange> changes = new CopyOnWriteArrayList<>();
    private final long startNanos = System.nanoTime();
    private volatile boolean closed;
    private volatile double baseline;
    private volatile long lastChangeNanos = System.nanoTime();
    private volatile boolean probing;

    // Tuner thread state.
    private final Set<String> fixed = new HashSet<>();                    // stages whose concurrency cannot change
    private final Map<String, Long> coolUntil = new HashMap<>();          // "stage/knob/+1" -> window index
    private final Map<String, Integer> failedProbes = new HashMap<>();
    private final Map<String, Map<Integer, Double>> taskMillisAt = new HashMap<>();   // stage -> concurrency -> task ms
    private long windowIndex;
    private String streakKey;      // the last kept probe's key, and how many kept in a row
    private int streak;
    private volatile Probe inFlight;

    private Autotune(Pipeline<?> pipeline, AutotuneBudget budget) {
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.thread = Thread.ofPlatform().name("stoker-autotune").daemon(true).unstarted(this::loop);
    }

    /** Starts tuning {@code pipeline} while it runs; {@link #close()} stops (the pipeline keeps its last settings). */
    public static Autotune online(Pipeline<?> pipeline, AutotuneBudget budget) {
        Autotune a = new Autotune(pipeline, budget);
        a.thread.start();
        return a;
    }

    /** Every change so far, probes and steps back included. */
    public List<AutotuneChange> changes() {
        return List.copyOf(changes);
    }

    /** The changes that stayed. */
    public List<AutotuneChange> kept() {
        return changes.stream().filter(c -> c.outcome().equals("kept") || c.outcome().equals("budget")).toList();
    }

    /** The latest baseline throughput (items/s at the sink). */
    public double throughput() {
        return baseline;
    }

    /** Whether no probe is running and none has been for {@code windows} windows. */
    public boolean settled(int windows) {
        return !probing && System.nanoTime() - lastChangeNanos > windows * budget.window().toNanos();
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- measurement ----

    /** Cumulative counters at one instant. */
    private record Sample(long nanos, long delivered, double consumerWaitMillis, long cpuNanos, Map<String, StageStats> stages) {
        static Sample take(PipelineStats s) {
            Map<String, StageStats> byName = new HashMap<>();
            for (StageStats st : s.stages()) {
                byName.put(st.name(), st);
            }
            return new Sample(System.nanoTime(), s.sink().delivered(), s.sink().consumerWaitMillis(), processCpuNanos(), byName);
        }
    }

    /** What happened between two samples. */
    private record Window(double seconds, double throughput, double consumerWaitShare, double cores,
                          Map<String, Double> busy, Map<String, Double> taskMillis, Map<String, Integer> concurrency) { }

    private static Window between(Sample a, Sample b) {
        double dt = Math.max(1e-6, (b.nanos - a.nanos) / 1e9);
        Map<String, Double> busy = new HashMap<>();
        Map<String, Double> task = new HashMap<>();
        Map<String, Integer> conc = new HashMap<>();
        for (StageStats s : b.stages.values()) {
            StageStats before = a.stages.get(s.name());
            if (s.name().equals("source") || before == null) {
                continue;
            }
            long counted = s.taskTime().count() - before.taskTime().count();
            double sumMicros = s.taskTime().count() * s.taskTime().meanMicros() - before.taskTime().count() * before.taskTime().meanMicros();
            long items = s.itemsIn() - before.itemsIn();
            conc.put(s.name(), s.concurrency());
            if (counted > 0 && items > 0) {
                double meanMicros = sumMicros / counted;
                task.put(s.name(), meanMicros / 1000);
                busy.put(s.name(), Math.min(1, items * meanMicros / 1e6 / (dt * s.concurrency())));
            } else {
                // nothing finished in the window: a stage stuck on long tasks is busy, an idle one is not
                busy.put(s.name(), s.inFlight() > 0 ? Math.min(1, (double) s.inFlight() / s.concurrency()) : 0);
            }
        }
        double cores = a.cpuNanos < 0 || b.cpuNanos < 0 ? Double.NaN : (b.cpuNanos - a.cpuNanos) / 1e9 / dt;
        return new Window(dt, (b.delivered - a.delivered) / dt, (b.consumerWaitMillis - a.consumerWaitMillis) / 1000 / dt,
                cores, busy, task, conc);
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Sleeps {@code windows} windows; false when closed meanwhile. */
    private boolean pause(int windows) {
        long until = System.nanoTime() + windows * budget.window().toNanos();
        while (!closed) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                windowIndex += windows;
                return true;
            }
            LockSupport.parkNanos(left);
        }
        return false;
    }

    /** Throughput ticks per window: the measurement is their median, so that one stall does not decide. */
    private static final int TICKS_PER_WINDOW = 5;

    /**
     * Measures over the next {@code probeWindows} windows; null when closed. The throughput is the median
     * of the rates in {@link #TICKS_PER_WINDOW} ticks per window (robust on a loaded machine); the stage
     * signals come from the span as a whole.
     */
    private Window measure() {
        Sample a = Sample.take(pipeline.stats());
        int ticks = budget.probeWindows() * TICKS_PER_WINDOW;
        long tickNanos = budget.window().toNanos() / TICKS_PER_WINDOW;
        double[] rates = new double[ticks];
        long lastDelivered = a.delivered();
        long lastNanos = a.nanos();
        for (int i = 0; i < ticks; i++) {
            long until = lastNanos + tickNanos;
            while (!closed && System.nanoTime() < until) {
                LockSupport.parkNanos(until - System.nanoTime());
            }
            if (closed) {
                return null;
            }
            long now = System.nanoTime();
            long delivered = pipeline.stats().sink().delivered();
            rates[i] = (delivered - lastDelivered) / ((now - lastNanos) / 1e9);
            lastDelivered = delivered;
            lastNanos = now;
        }
        windowIndex += budget.probeWindows();
        Sample b = Sample.take(pipeline.stats());
        Window span = between(a, b);
        double[] sorted = rates.clone();
        java.util.Arrays.sort(sorted);
        double median = ticks % 2 == 1 ? sorted[ticks / 2] : (sorted[ticks / 2 - 1] + sorted[ticks / 2]) / 2;
        Window w = new Window(span.seconds(), median, span.consumerWaitShare(), span.cores(), span.busy(), span.taskMillis(),
                span.concurrency());
        for (Map.Entry<String, Double> t : w.taskMillis().entrySet()) {
            if (w.busy().getOrDefault(t.getKey(), 0.0) > 0.5) {
                taskMillisAt.computeIfAbsent(t.getKey(), k -> new HashMap<>()).put(w.concurrency().get(t.getKey()), t.getValue());
            }
        }
        return w;
    }

    // ---- the loop ----

    private record Probe(String stage, String knob, int from, int to, String reason) {
        boolean increase() {
            return to > from;
        }

        String key() {
            return stage + "/" + knob + "/" + (increase() ? "+" : "-");
        }

        String reverseKey() {
            return stage + "/" + knob + "/" + (increase() ? "-" : "+");
        }
    }

    private void loop() {
        try {
            if (!pause(1)) {
                return;   // warm-up window
            }
            Window base = measure();
            if (base == null) {
                return;
            }
            baseline = base.throughput();
            int quietLow = 0;
            while (!closed && !pipeline.endOfStream()) {
                Probe correction = budgetCorrection(base);
                if (correction != null) {
                    apply(correction);
                    record(correction, "budget", baseline, 0);
                    if (!pause(1)) {
                        return;
                    }
                    base = measure();
                    if (base == null) {
                        return;
                    }
                    baseline = base.throughput();
                    continue;
                }
                Probe probe = choose(base);
                if (probe == null) {
                    Window now = measure();
                    if (now == null) {
                        return;
                    }
                    // Drifted far below the baseline with nothing changed: the workload changed; start afresh.
                    quietLow = now.throughput() < baseline * 0.8 ? quietLow + 1 : 0;
                    if (quietLow >= 2) {
                        coolUntil.clear();
                        failedProbes.clear();
                        taskMillisAt.clear();
                        quietLow = 0;
                    }
                    baseline = 0.5 * baseline + 0.5 * now.throughput();
                    base = now;
                    continue;
                }
                if (!apply(probe)) {
                    continue;
                }
                inFlight = probe;
                probing = true;
                record(probe, "probe", baseline, 0);
                if (!pause(1)) {
                    return;
                }
                Window after = measure();
                if (after == null) {
                    return;
                }
                double m = after.throughput();
                boolean keep = probe.increase() ? m > baseline * (1 + KEEP_INCREASE) : m >= baseline * (1 - KEEP_DECREASE);
                inFlight = null;
                if (keep) {
                    streak = probe.key().equals(streakKey) ? streak + 1 : 1;
                    streakKey = probe.key();
                    record(probe, "kept", baseline, m);
                    baseline = m;
                    base = after;
                    failedProbes.remove(probe.key());
                    coolUntil.put(probe.reverseKey(), windowIndex + BASE_COOLDOWN_WINDOWS);   // no immediate undo
                } else {
                    streak = 0;
                    Probe back = new Probe(probe.stage(), probe.knob(), probe.to(), probe.from(), "step back: "
                            + String.format(Locale.ROOT, "%.0f/s after vs %.0f/s before", m, baseline));
                    apply(back);
                    record(back, "reverted", baseline, m);
                    int failures = failedProbes.merge(probe.key(), 1, Integer::sum);
                    coolUntil.put(probe.key(), windowIndex + Math.min(MAX_COOLDOWN_WINDOWS,
                            (long) BASE_COOLDOWN_WINDOWS << Math.min(failures - 1, 6)));
                    if (!pause(1)) {
                        return;
                    }
                }
                probing = false;
            }
        } catch (IllegalStateException closedPipeline) {
            // the pipeline was closed under us
        } finally {
            Probe unfinished = inFlight;
            if (unfinished != null) {   // closed mid-probe: leave the pipeline as the last kept state had it
                try {
                    Probe back = new Probe(unfinished.stage(), unfinished.knob(), unfinished.to(), unfinished.from(),
                            "step back: stopped before the probe was measured");
                    if (apply(back)) {
                        record(back, "reverted", baseline, 0);
                    }
                } catch (IllegalStateException closedPipeline) {
                    // nothing to restore
                }
            }
            probing = false;
        }
    }

    private boolean cooling(String key) {
        return coolUntil.getOrDefault(key, -1L) > windowIndex;
    }

    private boolean apply(Probe p) {
        try {
            if (p.stage().equals("sink")) {
                pipeline.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(p.to()));
            } else if (p.knob().equals("concurrency")) {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withConcurrency(p.to()));
            } else {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withQueueCapacity(p.to()));
            }
            lastChangeNanos = System.nanoTime();
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            fixed.add(p.stage());
            return false;
        }
    }

    private void record(Probe p, String outcome, double before, double after) {
        changes.add(new AutotuneChange(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), p.stage(), p.knob(),
                p.from(), p.to(), p.reason(), outcome, Math.round(before * 10) / 10.0, Math.round(after * 10) / 10.0));
    }

    /** Estimated bytes the stages' items may hold with {@code config}. */
    long ramBytes(PipelineConfig config) {
        long total = 0;
        for (Map.Entry<String, StageConfig> s : config.stages().entrySet()) {
            long per = budget.bytesPerItem().getOrDefault(s.getKey(), 0L);
            StageConfig c = s.getValue();
            total += per * ((c.concurrency() == null ? 1 : c.concurrency()) + (c.queueCapacity() == null ? 0 : c.queueCapacity()));
        }
        return total + budget.bytesPerItem().getOrDefault("sink", 0L) * (config.sinkCapacity() == null ? 0 : config.sinkCapacity());
    }

    private boolean fitsRam(PipelineConfig config) {
        return budget.ramBytes() == Long.MAX_VALUE || ramBytes(config) <= budget.ramBytes();
    }

    /** A step that brings the pipeline back within its CPU or RAM budget, or null. */
    private Probe budgetCorrection(Window w) {
        PipelineConfig config = pipeline.config();
        boolean overCpu = !Double.isNaN(w.cores()) && w.cores() > budget.cores() * 1.05;
        boolean overRam = !fitsRam(config);
        if (!overCpu && !overRam) {
            return null;
        }
        // The stage with the most idle workers gives one up.
        String victim = null;
        double mostIdle = -1;
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            if (c.getValue() > 1 && !fixed.contains(c.getKey())) {
                double idleWorkers = c.getValue() * (1 - w.busy().getOrDefault(c.getKey(), 0.0));
                if (idleWorkers > mostIdle) {
                    mostIdle = idleWorkers;
                    victim = c.getKey();
                }
            }
        }
        if (victim == null) {
            return null;
        }
        int c = config.stage(victim).concurrency();
        return new Probe(victim, "concurrency", c, c - 1, overCpu
                ? String.format(Locale.ROOT, "over the CPU budget (%.2f of %.2f cores)", w.cores(), budget.cores())
                : String.format(Locale.ROOT, "over the RAM budget (%d of %d bytes)", ramBytes(config), budget.ramBytes()));
    }

    /** The next probe, from the window's signals, or null to sit still. */
    private Probe choose(Window w) {
        PipelineConfig config = pipeline.config();
        String bottleneck = null;
        double most = 0;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            if (b.getValue() > most) {
                most = b.getValue();
                bottleneck = b.getKey();
            }
        }
        List<Probe> options = new ArrayList<>();
        if (bottleneck != null && most >= 0.7 && !fixed.contains(bottleneck)) {
            int c = w.concurrency().get(bottleneck);
            Double now = w.taskMillis().get(bottleneck);
            Double fewer = taskMillisAt.getOrDefault(bottleneck, Map.of()).get(c - 1);
            boolean contention = now != null && fewer != null && c > 1 && now / fewer >= (double) c / (c - 1) * 0.95;
            if (contention) {
                options.add(new Probe(bottleneck, "concurrency", c, c - 1, String.format(Locale.ROOT,
                        "contention: %s's task time rose from %.1f ms at %d workers to %.1f ms at %d", bottleneck, fewer, c - 1, now, c)));
            }
            double cpuPerWorker = Double.isNaN(w.cores()) ? 0 : w.cores() / Math.max(1, busyWorkers(w));
            boolean cpuRoom = Double.isNaN(w.cores()) || w.cores() + cpuPerWorker <= budget.cores();
            // Two kept steps up in a row: the next one is two workers.
            int step = (bottleneck + "/concurrency/+").equals(streakKey) && streak >= 2 ? 2 : 1;
            for (int up = Math.min(step, budget.maxConcurrency() - c); up >= 1; up--) {
                if (cpuRoom && fitsRam(config.withStage(bottleneck, config.stage(bottleneck).withConcurrency(c + up)))) {
                    options.add(new Probe(bottleneck, "concurrency", c, c + up, String.format(Locale.ROOT,
                            "%s is saturated (busy %.0f%% of %d workers)", bottleneck, most * 100, c)));
                    break;
                }
            }
            if (c > 1) {
                options.add(new Probe(bottleneck, "concurrency", c, c - 1, String.format(Locale.ROOT,
                        "%s is saturated and more workers do not pay: fewer may contend less", bottleneck)));
            }
        }
        if (w.consumerWaitShare() > 0.1 && config.sinkCapacity() != null && config.sinkCapacity() < budget.maxQueueCapacity()) {
            int s = config.sinkCapacity();
            int bigger = Math.min(budget.maxQueueCapacity(), s * 2);
            if (fitsRam(config.withSinkCapacity(bigger))) {
                options.add(new Probe("sink", "queueCapacity", s, bigger, String.format(Locale.ROOT,
                        "the consumer waits %.0f%% of the time", w.consumerWaitShare() * 100)));
            }
        }
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            double busy = w.busy().getOrDefault(c.getKey(), 0.0);
            if (c.getValue() > 1 && busy < 0.3 && !c.getKey().equals(bottleneck) && !fixed.contains(c.getKey())) {
                options.add(new Probe(c.getKey(), "concurrency", c.getValue(), c.getValue() - 1, String.format(Locale.ROOT,
                        "%s is busy %.0f%% of %d workers: one fewer", c.getKey(), busy * 100, c.getValue())));
            }
        }
        for (Probe p : options) {
            if (!cooling(p.key())) {
                return p;
            }
        }
        return null;
    }

    private static double busyWorkers(Window w) {
        double n = 0;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            n += b.getValue() * w.concurrency().getOrDefault(b.getKey(), 1);
        }
        return n;
    }
}
