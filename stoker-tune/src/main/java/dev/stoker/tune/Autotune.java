package dev.stoker.tune;

import dev.stoker.pipeline.Bottleneck;
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
 * <p>It works in windows ({@link AutotuneBudget#window()}): measure the throughput at the sink (the baseline; a
 * measurement runs on until it has seen {@link AutotuneBudget#minItems()} items; the rate over its ticks that
 * were not stalls, {@link TickRate}), read per-stage busy shares, task times and input-queue fill from the same
 * span, then probe one change: one worker more for the saturated stage (for it and another stage busy 90%+
 * together, where one alone would only move the limit to the other); one fewer when its task time grew with its
 * concurrency (contention), or when more do not pay and its task time at one fewer (where the tuner stood) is
 * not known to be as short; a deeper input queue for a bottleneck that keeps finding it empty; a larger sink
 * when the consumer waits although the sink fills at times; one fewer for a stage that mostly idles. A consumer
 * that hardly waits for data ({@link Bottleneck#consumerBound}) sets the pace: then no stage is a bottleneck, and only
 * idle workers are given back (a stage kept busy 80% by a consumer it stays ahead of is not saturated). After a
 * settling window it measures again: an increase is kept only when it raised throughput by more than max(5%, 2 x
 * the noise), a decrease when it lost less than max(3%, 1.25 x the noise) and at most 15% (hysteresis: fewer
 * resources win ties), where the noise is the measured difference between repeated measurements of the unchanged
 * pipeline ({@link #noise()}); otherwise it steps back. Where only the noise decides (a gain above 5% that does
 * not clear the noise, a loss above 3% that only the noise forgives), the probe is measured as long again and
 * the whole judged, with the smaller noise of twice the items. A measurement of the unchanged pipeline far off
 * the baseline (more than max(20%, 4 x the noise): a stretch in which the loaded machine slowed every thread) is
 * measured again before the tuner acts on it; twice in a row, the workload changed, and the tuner starts afresh.
 * A change that did not pay, and the way back from one that did, cool down (a probe that fails again waits twice
 * as long), so the tuner settles instead of oscillating. Over the CPU budget (measured) or the RAM budget
 * (estimated, {@link AutotuneBudget#ramBytes(PipelineConfig)}) it first gives back: a queue halved, or a worker
 * of the stage that idles most. Every change is in {@link #changes()}, and, with its reason, in the pipeline's
 * stats ({@link PipelineStats#reconfigurations()}), config and trace.
 */
public final class Autotune implements AutoCloseable {
    static final double KEEP_INCREASE = Bottleneck.MIN_GAIN;
    static final double KEEP_DECREASE = 0.03;
    static final double MAX_KEPT_LOSS = 0.15;
    /** Off the baseline by more than this share (or 4 x the noise), an unchanged pipeline is measured again. */
    static final double OFF_BASELINE = 0.2;
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
    private final Set<String> fixed = new HashSet<>();                    // "stage/knob" that cannot change
    private final Map<String, Long> coolUntil = new HashMap<>();          // "stage/knob/+1" -> window index
    private final Map<String, Integer> failedProbes = new HashMap<>();
    private final Map<String, Map<Integer, Double>> taskMillisAt = new HashMap<>();   // stage -> concurrency -> task ms
    // The same, from windows of a state the tuner stood at (a baseline), never from a probe's own window: one that
    // was stepped back may have been a stall, whose swollen task times must not rule out a probe for good.
    private final Map<String, Map<Integer, Double>> settledTaskMillisAt = new HashMap<>();
    private long windowIndex;
    private String streakKey;      // the last kept probe's key, and how many kept in a row
    private int streak;
    private volatile Probe inFlight;
    // Relative difference between consecutive measurements of an unchanged pipeline, scaled by the square root
    // of the items they counted (a rate from 4x the items is about half as noisy), the median of the last
    // NOISE_SAMPLES (one stall does not decide): the noise a probe's gain must clear. NaN until two were taken.
    private static final int NOISE_SAMPLES = 7;
    private final java.util.ArrayDeque<Double> noiseSamples = new java.util.ArrayDeque<>();
    private volatile double noisePerRootItem = Double.NaN;
    private volatile long lastItems = 1;

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

    /**
     * The noise of the latest measurement: the relative difference expected between two measurements of the
     * unchanged pipeline that count as many items (NaN before the first pair). It is learned from such pairs
     * (the median of the last seven, each scaled by the square root of the items it counted, so that a slow
     * start does not set it for a faster pipeline later). An increase is kept only above max(5%, 2 x noise), a
     * decrease unless it lost more than max(3%, 1.25 x noise), and never one that lost more than 15% (a
     * median difference is about 0.67 standard deviations of a difference: 2 x noise is about 1.35 of them).
     */
    public double noise() {
        return noiseFor(lastItems);
    }

    private double noiseFor(long items) {
        return noisePerRootItem / Math.sqrt(Math.max(1, items));
    }

    private void observeNoise(Window a, Window b) {
        double x = a.throughput();
        double y = b.throughput();
        if (x > 0 && y > 0 && a.items() > 0 && b.items() > 0) {
            noiseSamples.addLast(Math.abs(x - y) / ((x + y) / 2) * Math.sqrt((a.items() + b.items()) / 2.0));
            if (noiseSamples.size() > NOISE_SAMPLES) {
                noiseSamples.removeFirst();
            }
            double[] sorted = noiseSamples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int n = sorted.length;
            noisePerRootItem = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }
    }

    private double increaseThreshold(long items) {
        double noise = noiseFor(items);
        return Double.isNaN(noise) ? KEEP_INCREASE : Math.max(KEEP_INCREASE, 2 * noise);
    }

    private double decreaseThreshold(long items) {
        // Capped: on a very noisy measurement a real loss could hide in the noise; no step keeps one above 15%.
        double noise = noiseFor(items);
        return Double.isNaN(noise) ? KEEP_DECREASE : Math.min(MAX_KEPT_LOSS, Math.max(KEEP_DECREASE, 1.25 * noise));
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
                          Map<String, Double> busy, Map<String, Double> taskMillis, Map<String, Integer> concurrency,
                          Map<String, Double> queueEmpty, double sinkFullShare, long items) { }

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
                cores, busy, task, conc, Map.of(), 0, b.delivered - a.delivered);
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

    /** Throughput ticks per window: a tick in which the machine stalled is left out ({@link TickRate}). */
    private static final int TICKS_PER_WINDOW = 5;
    /**
     * A measurement waiting for {@link AutotuneBudget#minItems()} stops at this many times its windows (a loader
     * at one batch a second, with the defaults: 20 s, not the minute 20 items would take at worst).
     */
    private static final int MAX_STRETCH = 20;

    /**
     * Measures over the next {@code probeWindows} windows, longer (up to {@link #MAX_STRETCH} times) until
     * {@link AutotuneBudget#minItems()} items were delivered; null when closed. The throughput is the rate over
     * the ticks ({@link #TICKS_PER_WINDOW} per window) that were not stalls ({@link TickRate}); the stage signals
     * come from the span as a whole, and each stage's input queue is looked at every tick (the share of ticks it
     * was empty).
     */
    private Window measure() {
        Sample a = Sample.take(pipeline.stats());
        long tickNanos = budget.window().toNanos() / TICKS_PER_WINDOW;
        int minTicks = budget.probeWindows() * TICKS_PER_WINDOW;
        int maxTicks = minTicks * MAX_STRETCH;
        List<long[]> ticksSeen = new ArrayList<>();   // {items, nanos} per tick
        Map<String, Integer> emptyTicks = new HashMap<>();
        int sinkFullTicks = 0;
        long lastDelivered = a.delivered();
        long lastNanos = a.nanos();
        int ticks = 0;
        while (ticks < minTicks || (lastDelivered - a.delivered() < budget.minItems() && ticks < maxTicks
                && !pipeline.endOfStream())) {
            long until = lastNanos + tickNanos;
            while (!closed && System.nanoTime() < until) {
                LockSupport.parkNanos(until - System.nanoTime());
            }
            if (closed) {
                return null;
            }
            long now = System.nanoTime();
            PipelineStats stats = pipeline.stats();
            long delivered = stats.sink().delivered();
            ticksSeen.add(new long[] {delivered - lastDelivered, now - lastNanos});
            for (StageStats st : stats.stages()) {
                if (st.inputQueue().capacity() > 0 && st.inputQueue().size() == 0) {
                    emptyTicks.merge(st.name(), 1, Integer::sum);
                }
            }
            if (stats.sink().size() >= stats.sink().capacity()) {
                sinkFullTicks++;
            }
            lastDelivered = delivered;
            lastNanos = now;
            ticks++;
        }
        windowIndex += (ticks + TICKS_PER_WINDOW - 1) / TICKS_PER_WINDOW;
        Sample b = Sample.take(pipeline.stats());
        Window span = between(a, b);
        double throughput = TickRate.of(ticksSeen.stream().mapToLong(t -> t[0]).toArray(),
                ticksSeen.stream().mapToLong(t -> t[1]).toArray());
        Map<String, Double> queueEmpty = new HashMap<>();
        for (String stage : span.concurrency().keySet()) {
            queueEmpty.put(stage, emptyTicks.getOrDefault(stage, 0) / (double) ticks);
        }
        Window w = new Window(span.seconds(), throughput, Math.min(1, span.consumerWaitShare()), span.cores(), span.busy(),
                span.taskMillis(), span.concurrency(), queueEmpty, sinkFullTicks / (double) ticks, span.items());
        lastItems = Math.max(1, span.items());
        for (Map.Entry<String, Double> t : w.taskMillis().entrySet()) {
            if (w.busy().getOrDefault(t.getKey(), 0.0) > 0.5) {
                taskMillisAt.computeIfAbsent(t.getKey(), k -> new HashMap<>()).put(w.concurrency().get(t.getKey()), t.getValue());
            }
        }
        return w;
    }

    /** Waits out the start: two windows, and the first item delivered (a loader's first batch comes slowly). */
    private boolean warmUp() {
        if (!pause(2)) {
            return false;
        }
        while (!closed && !pipeline.endOfStream() && pipeline.stats().sink().delivered() == 0) {
            if (!pause(1)) {
                return false;
            }
        }
        return !closed;
    }

    // ---- the loop ----

    /**
     * One change to try: a knob of a stage from a value to another, and why; with a {@code partner}, a second
     * stage's change made and judged together with it (two stages saturated at once: neither helps alone).
     */
    private record Probe(String stage, String knob, int from, int to, String reason, Probe partner) {
        Probe(String stage, String knob, int from, int to, String reason) {
            this(stage, knob, from, to, reason, null);
        }

        boolean increase() {
            return to > from;
        }

        String key() {
            return stage + "/" + knob + "/" + (increase() ? "+" : "-") + (partner == null ? "" : "&" + partner.key());
        }

        String reverseKey() {
            return stage + "/" + knob + "/" + (increase() ? "-" : "+")
                    + (partner == null ? "" : "&" + partner.reverseKey());
        }

        /** The way back: the partner's step undone first, then this one's. */
        Probe back(String why) {
            Probe mine = new Probe(stage, knob, to, from, why, null);
            return partner == null ? mine : new Probe(partner.stage, partner.knob, partner.to, partner.from, why, mine);
        }
    }

    private void loop() {
        try {
            if (!warmUp()) {
                return;
            }
            // Three measurements of the start: their differences are the first noise estimate (two, so that one
            // start-up stall does not set it alone), their mean the first baseline.
            Window first = measure();
            Window second = first == null ? null : measure();
            Window base = second == null ? null : measure();
            if (base == null) {
                return;
            }
            observeNoise(first, second);
            observeNoise(second, base);
            baseline = (first.throughput() + second.throughput() + base.throughput()) / 3;
            boolean offBaseline = false;
            while (!closed && !pipeline.endOfStream()) {
                Probe correction = budgetCorrection(base);
                if (correction != null) {
                    if (!apply(correction, "budget")) {
                        continue;
                    }
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
                Probe probe = offBaseline ? null : choose(base);
                if (probe == null) {
                    Window now = measure();
                    if (now == null) {
                        return;
                    }
                    // The unchanged pipeline measured far off the baseline: a stretch in which the machine slowed every
                    // thread (its task times swell too, and read as contention), or the workload changed. Measured again
                    // before it is believed: meanwhile its signals choose no probe and it moves no baseline.
                    double off = Math.abs(now.throughput() / baseline - 1);
                    double noise = noiseFor(now.items());
                    boolean far = off > (Double.isNaN(noise) ? OFF_BASELINE : Math.max(OFF_BASELINE, 4 * noise));
                    if (far && !offBaseline) {
                        offBaseline = true;
                        continue;
                    }
                    if (far) {   // twice in a row: the workload changed; start afresh
                        coolUntil.clear();
                        failedProbes.clear();
                        taskMillisAt.clear();
                        settledTaskMillisAt.clear();
                        baseline = now.throughput();
                    } else {
                        observeNoise(base, now);   // nothing changed since 'base'
                        baseline = 0.5 * baseline + 0.5 * now.throughput();
                    }
                    offBaseline = false;
                    base = now;
                    continue;
                }
                if (!apply(probe, "probe")) {
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
                long items = after.items();
                double increaseBy = increaseThreshold(items);
                double decreaseBy = decreaseThreshold(items);
                if (probe.increase() ? m > baseline * (1 + KEEP_INCREASE) && m <= baseline * (1 + increaseBy)
                        : m < baseline * (1 - KEEP_DECREASE) && m >= baseline * (1 - decreaseBy)) {
                    // Only the noise decides (a gain that would count on a quiet machine but does not clear the noise;
                    // a loss that only the noise forgives): measure as long again, and judge the whole, whose noise is
                    // smaller. One unlucky measurement neither turns down a real gain nor keeps a real loss.
                    Window more = measure();
                    if (more == null) {
                        return;
                    }
                    m = (m * after.seconds() + more.throughput() * more.seconds()) / (after.seconds() + more.seconds());
                    items += more.items();
                    increaseBy = increaseThreshold(items);
                    decreaseBy = decreaseThreshold(items);
                    after = more;
                }
                boolean keep = probe.increase() ? m > baseline * (1 + increaseBy) : m >= baseline * (1 - decreaseBy);
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
                    Probe back = probe.back("step back: " + String.format(Locale.ROOT, probe.increase()
                                    ? "%.1f/s after vs %.1f/s before (needed +%.0f%%)"
                                    : "%.1f/s after vs %.1f/s before (allowed -%.0f%%)", m, baseline,
                            100 * (probe.increase() ? increaseBy : decreaseBy)));
                    apply(back, "reverted");
                    record(back, "reverted", baseline, m);
                    int failures = failedProbes.merge(probe.key(), 1, Integer::sum);
                    coolUntil.put(probe.key(), windowIndex + Math.min(MAX_COOLDOWN_WINDOWS,
                            (long) BASE_COOLDOWN_WINDOWS << Math.min(failures - 1, 6)));
                    if (!pause(1)) {
                        return;
                    }
                    // Back where 'base' was measured: measure again, for the noise and a fresh baseline.
                    Window again = measure();
                    if (again == null) {
                        return;
                    }
                    observeNoise(base, again);
                    baseline = (base.throughput() + again.throughput()) / 2;
                    base = again;
                }
                probing = false;
            }
        } catch (IllegalStateException closedPipeline) {
            // the pipeline was closed under us
        } finally {
            Probe unfinished = inFlight;
            if (unfinished != null) {   // closed mid-probe: leave the pipeline as the last kept state had it
                try {
                    Probe back = unfinished.back("step back: stopped before the probe was measured");
                    if (apply(back, "reverted")) {
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

    /**
     * Makes the change (and its partner's); {@code outcome} (probe, reverted, budget) and the reason go to the
     * stats and the trace. False when the pipeline refuses it (then the stage's knob is left alone from now on).
     */
    private boolean apply(Probe p, String outcome) {
        if (!applyOne(p, outcome)) {
            return false;
        }
        if (p.partner() != null && !applyOne(p.partner(), outcome)) {
            applyOne(new Probe(p.stage(), p.knob(), p.to(), p.from(), "step back: " + p.partner().stage() + " cannot change"),
                    "reverted");
            return false;
        }
        return true;
    }

    private boolean applyOne(Probe p, String outcome) {
        String reason = "autotune " + outcome + ": " + p.reason();
        try {
            if (p.stage().equals("sink")) {
                pipeline.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(p.to()), reason);
            } else if (p.knob().equals("concurrency")) {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withConcurrency(p.to()), reason);
            } else {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withQueueCapacity(p.to()), reason);
            }
            lastChangeNanos = System.nanoTime();
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            fixed.add(p.stage() + "/" + p.knob());   // a batch stage's workers, a stage in another process
            return false;
        }
    }

    private void record(Probe p, String outcome, double before, double after) {
        long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        for (Probe q = p; q != null; q = q.partner()) {
            changes.add(new AutotuneChange(at, q.stage(), q.knob(), q.from(), q.to(), q.reason(), outcome,
                    Math.round(before * 10) / 10.0, Math.round(after * 10) / 10.0));
        }
    }

    private boolean fitsRam(PipelineConfig config) {
        return budget.fitsRam(config);
    }

    private boolean canChange(String stage, String knob) {
        return !fixed.contains(stage + "/" + knob);
    }

    /**
     * A step that brings the pipeline back within its CPU or RAM budget, or null. Over RAM, the queue whose
     * items hold the most bytes is halved first (queued items wait; workers work); otherwise, and over CPU,
     * the stage with the most idle workers gives one up.
     */
    private Probe budgetCorrection(Window w) {
        PipelineConfig config = pipeline.config();
        boolean overCpu = !Double.isNaN(w.cores()) && w.cores() > budget.cores() * 1.05;
        boolean overRam = !fitsRam(config);
        if (!overCpu && !overRam) {
            return null;
        }
        String ramReason = String.format(Locale.ROOT, "over the RAM budget (%d of %d bytes)", budget.ramBytes(config),
                budget.ramBytes());
        if (overRam && !overCpu) {
            String queue = null;
            long most = 0;
            for (Map.Entry<String, StageConfig> s : config.stages().entrySet()) {
                Integer q = s.getValue().queueCapacity();
                long bytes = q == null ? 0 : q * budget.bytesPerItem().getOrDefault(s.getKey(), 0L);
                if (q != null && q > 1 && bytes > most && canChange(s.getKey(), "queueCapacity")
                        && w.concurrency().containsKey(s.getKey())) {
                    most = bytes;
                    queue = s.getKey();
                }
            }
            Integer sink = config.sinkCapacity();
            if (sink != null && sink > 1 && sink * budget.bytesPerItem().getOrDefault("sink", 0L) > most) {
                return new Probe("sink", "queueCapacity", sink, sink / 2, ramReason);
            }
            if (queue != null) {
                int q = config.stage(queue).queueCapacity();
                return new Probe(queue, "queueCapacity", q, Math.max(1, q / 2), ramReason);
            }
        }
        String victim = null;
        double mostIdle = -1;
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            if (c.getValue() > 1 && canChange(c.getKey(), "concurrency")) {
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
                : ramReason);
    }

    /** The next probe, from the signals of {@code w} (a window of the state the tuner stands at), or null to sit still. */
    private Probe choose(Window w) {
        PipelineConfig config = pipeline.config();
        for (Map.Entry<String, Double> t : w.taskMillis().entrySet()) {
            if (w.busy().getOrDefault(t.getKey(), 0.0) > 0.5) {
                settledTaskMillisAt.computeIfAbsent(t.getKey(), k -> new HashMap<>()).put(w.concurrency().get(t.getKey()),
                        t.getValue());
            }
        }
        String bottleneck = null;
        double most = 0;
        // A consumer-bound pipeline has no bottleneck stage: its busiest stage is busy because it keeps ahead of
        // the consumer (busy 80% of 3 workers where 2 fall behind), not because it limits; a worker more cannot
        // pay, and a worker fewer can only fall behind.
        if (!Bottleneck.consumerBound(w.consumerWaitShare())) {
            for (Map.Entry<String, Double> b : w.busy().entrySet()) {
                if (b.getValue() > most) {
                    most = b.getValue();
                    bottleneck = b.getKey();
                }
            }
        }
        List<Probe> options = new ArrayList<>();
        if (bottleneck != null && Bottleneck.saturated(most)) {
            int c = w.concurrency().get(bottleneck);
            // A bottleneck that keeps finding its input queue empty, while not busy all the time, is fed in
            // bursts: a deeper queue lets the stage before it run ahead.
            double empty = w.queueEmpty().getOrDefault(bottleneck, 0.0);
            int q = config.stage(bottleneck).queueCapacity();
            Probe deeper = null;
            if (empty >= 0.5 && most < 0.95 && q < budget.maxQueueCapacity() && canChange(bottleneck, "queueCapacity")) {
                int bigger = Math.min(budget.maxQueueCapacity(), 2 * q);
                if (fitsRam(config.withStage(bottleneck, config.stage(bottleneck).withQueueCapacity(bigger)))) {
                    deeper = new Probe(bottleneck, "queueCapacity", q, bigger, String.format(Locale.ROOT,
                            "%s is busy %.0f%% of %d workers and its input queue was empty at %.0f%% of looks: fed in bursts,"
                                    + " a deeper queue", bottleneck, most * 100, c, empty * 100));
                }
            }
            if (deeper != null && most < 0.9) {
                options.add(deeper);
            }
            if (canChange(bottleneck, "concurrency")) {
                Double now = w.taskMillis().get(bottleneck);
                Double fewer = taskMillisAt.getOrDefault(bottleneck, Map.of()).get(c - 1);
                boolean contention = now != null && fewer != null && c > 1 && now / fewer >= (double) c / (c - 1) * 0.95;
                if (contention) {
                    options.add(new Probe(bottleneck, "concurrency", c, c - 1, String.format(Locale.ROOT,
                            "contention: %s's task time rose from %.1f ms at %d workers to %.1f ms at %d", bottleneck, fewer,
                            c - 1, now, c)));
                }
                double cpuPerWorker = Double.isNaN(w.cores()) ? 0 : w.cores() / Math.max(1, busyWorkers(w));
                boolean cpuRoom = Double.isNaN(w.cores()) || w.cores() + cpuPerWorker <= budget.cores();
                // Another stage saturated as well: one worker more for one of them only moves the limit to the
                // other, a gain of that stage's few percent of headroom (read 1 → 2 with work 5 at 96%: +2 to +5%),
                // below the bar, for a probe and its cooldown; so both together first.
                Probe both = bothSaturated(w, config, bottleneck, most, cpuPerWorker);
                if (both != null) {
                    options.add(both);
                }
                // Two kept steps up in a row: the next one is two workers.
                int step = (bottleneck + "/concurrency/+").equals(streakKey) && streak >= 2 ? 2 : 1;
                for (int up = Math.min(step, budget.maxConcurrency() - c); up >= 1; up--) {
                    if (cpuRoom && fitsRam(config.withStage(bottleneck, config.stage(bottleneck).withConcurrency(c + up)))) {
                        options.add(new Probe(bottleneck, "concurrency", c, c + up, String.format(Locale.ROOT,
                                "%s is saturated (busy %.0f%% of %d workers)", bottleneck, most * 100, c)));
                        break;
                    }
                }
                // Fewer may contend less: worth a probe unless the task time was measured at one worker fewer, while the
                // tuner stood there, and did not rise with the extra worker (then one fewer only loses 1/c).
                Double settledFewer = settledTaskMillisAt.getOrDefault(bottleneck, Map.of()).get(c - 1);
                boolean noContention = now != null && settledFewer != null && c > 1 && now / settledFewer < 1 + 0.5 / (c - 1);
                if (c > 1 && !noContention) {
                    options.add(new Probe(bottleneck, "concurrency", c, c - 1, String.format(Locale.ROOT,
                            "%s is saturated and more workers do not pay: fewer may contend less", bottleneck)));
                }
            }
            if (deeper != null && most >= 0.9) {
                options.add(deeper);
            }
        }
        // The consumer waits although the sink was full at times: delivery comes in bursts, and a larger sink
        // carries the consumer across the gaps. (A consumer that waits on an always-empty sink waits for a slow
        // pipeline; a larger sink cannot help it.)
        if (w.consumerWaitShare() > 0.1 && w.sinkFullShare() >= 0.2 && config.sinkCapacity() != null
                && config.sinkCapacity() < budget.maxQueueCapacity()) {
            int s = config.sinkCapacity();
            int bigger = Math.min(budget.maxQueueCapacity(), s * 2);
            if (fitsRam(config.withSinkCapacity(bigger))) {
                options.add(new Probe("sink", "queueCapacity", s, bigger, String.format(Locale.ROOT,
                        "the consumer waits %.0f%% of the time, yet the sink was full at %.0f%% of looks: bursts",
                        w.consumerWaitShare() * 100, w.sinkFullShare() * 100)));
            }
        }
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            double busy = w.busy().getOrDefault(c.getKey(), 0.0);
            if (c.getValue() > 1 && busy < 0.3 && !c.getKey().equals(bottleneck) && canChange(c.getKey(), "concurrency")) {
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

    /** One worker more for the bottleneck and for the next most saturated stage (busy 90%+), or null. */
    private Probe bothSaturated(Window w, PipelineConfig config, String bottleneck, double busy, double cpuPerWorker) {
        String second = null;
        double secondBusy = 0.9;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            String stage = b.getKey();
            if (!stage.equals(bottleneck) && b.getValue() >= secondBusy && canChange(stage, "concurrency")
                    && w.concurrency().get(stage) < budget.maxConcurrency()) {
                second = stage;
                secondBusy = b.getValue();
            }
        }
        int c = w.concurrency().get(bottleneck);
        if (second == null || c >= budget.maxConcurrency()) {
            return null;
        }
        int c2 = w.concurrency().get(second);
        boolean cpuRoom = Double.isNaN(w.cores()) || w.cores() + 2 * cpuPerWorker <= budget.cores();
        PipelineConfig more = config.withStage(bottleneck, config.stage(bottleneck).withConcurrency(c + 1))
                .withStage(second, config.stage(second).withConcurrency(c2 + 1));
        if (!cpuRoom || !fitsRam(more)) {
            return null;
        }
        String why = String.format(Locale.ROOT, "%s (busy %.0f%% of %d workers) and %s (busy %.0f%% of %d) are both"
                + " saturated: one worker more for each", bottleneck, busy * 100, c, second, secondBusy * 100, c2);
        return new Probe(bottleneck, "concurrency", c, c + 1, why, new Probe(second, "concurrency", c2, c2 + 1, why));
    }

    private static double busyWorkers(Window w) {
        double n = 0;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            n += b.getValue() * w.concurrency().getOrDefault(b.getKey(), 1);
        }
        return n;
    }
}
