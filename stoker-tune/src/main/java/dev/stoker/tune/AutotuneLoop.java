package dev.stoker.tune;

import dev.stoker.pipeline.Reconfiguration.Knob;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.tune.internal.AutotuneChange.Outcome;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The online tuner's duty cycle, on its own thread ({@link Autotune}) or, step by step, in a test with a fake
 * {@link NanoClock} and a model of a pipeline. {@link #start()} waits out the start and takes the first baseline;
 * each {@link #step()} then makes one decision: a budget correction, a probe measured and kept or stepped back
 * ({@link AcceptanceRule}), or a measurement of the unchanged pipeline (the noise, {@link NoiseEstimate}, and the
 * baseline follow it; far off the baseline twice in a row, the workload changed and the tuner starts afresh).
 */
final class AutotuneLoop {
    private final TunedPipeline pipeline;
    private final Meter meter;
    private final AutotuneBudget budget;
    private final NanoClock clock;
    private final Cooldowns cooldowns = new Cooldowns();
    private final ProbePolicy policy;
    private final NoiseEstimate noise = new NoiseEstimate();
    private final List<AutotuneChange> changes = new CopyOnWriteArrayList<>();
    private final long startNanos;

    // Read by other threads (Autotune's accessors).
    private volatile boolean closed;
    private volatile double baseline;
    private volatile long lastChangeNanos;
    private volatile boolean probing;
    private volatile Probe inFlight;
    private volatile long lastItems = 1;

    // The tuner thread's own.
    private MeasuredWindow base;   // the latest window of the state the tuner stands at
    private boolean offBaseline;   // the last measurement of it was far off the baseline: measure again before acting

    AutotuneLoop(TunedPipeline pipeline, Meter meter, AutotuneBudget budget, NanoClock clock) {
        this.pipeline = pipeline;
        this.meter = meter;
        this.budget = budget;
        this.clock = clock;
        this.policy = new ProbePolicy(budget, cooldowns);
        this.startNanos = clock.nanoTime();
        this.lastChangeNanos = startNanos;
    }

    List<AutotuneChange> changes() {
        return List.copyOf(changes);
    }

    double baseline() { return baseline; }

    double noise() {
        return noise.forItems(lastItems);
    }

    boolean settled(int windows) {
        return !probing && clock.nanoTime() - lastChangeNanos > windows * budget.window().toNanos();
    }

    boolean closed() { return closed; }

    /** Stops the loop at its next look at the time; a probe in flight is stepped back by {@link #run()}. */
    void close() {
        closed = true;
    }

    /** Tunes until closed or the end of the stream; on the way out, steps back a probe that was not measured. */
    void run() {
        try {
            if (!start()) {
                return;
            }
            while (!closed && !pipeline.endOfStream() && step()) {
                // one decision a turn
            }
        } catch (IllegalStateException closedPipeline) {
            // the pipeline was closed under us
        } finally {
            Probe unfinished = inFlight;
            if (unfinished != null) {   // closed mid-probe: leave the pipeline as the last kept state had it
                try {
                    Probe back = unfinished.back("step back: stopped before the probe was measured");
                    if (apply(back, Outcome.REVERTED)) {
                        record(back, Outcome.REVERTED, baseline, 0);
                    }
                } catch (IllegalStateException closedPipeline) {
                    // nothing to restore
                }
            }
            probing = false;
        }
    }

    /**
     * Waits out the start (two windows, and the first item delivered: a loader's first batch comes slowly), then
     * measures three times: their differences are the first noise estimate (two, so that one start-up stall does
     * not set it alone), their mean the first baseline. False when closed meanwhile.
     */
    boolean start() {
        if (!pause(2)) {
            return false;
        }
        while (!closed && !pipeline.endOfStream() && pipeline.delivered() == 0) {
            if (!pause(1)) {
                return false;
            }
        }
        MeasuredWindow first = measure();
        MeasuredWindow second = first == null ? null : measure();
        base = second == null ? null : measure();
        if (base == null) {
            return false;
        }
        noise.observe(first, second);
        noise.observe(second, base);
        baseline = (first.throughput() + second.throughput() + base.throughput()) / 3;
        return true;
    }

    /** One decision, after {@link #start()}; false when closed meanwhile. */
    boolean step() {
        Probe correction = policy.budgetCorrection(base, pipeline.config());
        if (correction != null) {
            if (!apply(correction, Outcome.BUDGET)) {
                return true;
            }
            record(correction, Outcome.BUDGET, baseline, 0);
            if (!pause(1)) {
                return false;
            }
            base = measure();
            if (base == null) {
                return false;
            }
            baseline = base.throughput();
            return true;
        }
        Probe probe = offBaseline ? null : policy.choose(base, pipeline.config());
        return probe == null ? measureUnchanged() : tryProbe(probe);
    }

    /**
     * Measures the unchanged pipeline. Far off the baseline ({@link AcceptanceRule#farOffBaseline}), it is measured
     * again before it is believed: meanwhile its signals choose no probe and it moves no baseline.
     */
    private boolean measureUnchanged() {
        MeasuredWindow now = measure();
        if (now == null) {
            return false;
        }
        boolean far = AcceptanceRule.farOffBaseline(now.throughput(), baseline, noise.forItems(now.items()));
        if (far && !offBaseline) {
            offBaseline = true;
            return true;
        }
        if (far) {   // twice in a row: the workload changed; start afresh
            cooldowns.clear();
            policy.forgetTaskTimes();
            baseline = now.throughput();
        } else {
            noise.observe(base, now);   // nothing changed since 'base'
            baseline = 0.5 * baseline + 0.5 * now.throughput();
        }
        offBaseline = false;
        base = now;
        return true;
    }

    /** Makes the change, lets it settle a window, measures, and keeps it or steps back. */
    private boolean tryProbe(Probe probe) {
        if (!apply(probe, Outcome.PROBE)) {
            return true;
        }
        inFlight = probe;
        probing = true;
        record(probe, Outcome.PROBE, baseline, 0);
        if (!pause(1)) {
            return false;
        }
        MeasuredWindow after = measure();
        if (after == null) {
            return false;
        }
        double m = after.throughput();
        long items = after.items();
        if (AcceptanceRule.onlyNoiseDecides(probe.increase(), m, baseline, noise.forItems(items))) {
            MeasuredWindow more = measure();
            if (more == null) {
                return false;
            }
            m = (m * after.seconds() + more.throughput() * more.seconds()) / (after.seconds() + more.seconds());
            items += more.items();
            after = more;
        }
        double noiseOfAll = noise.forItems(items);
        inFlight = null;
        if (AcceptanceRule.keeps(probe.increase(), m, baseline, noiseOfAll)) {
            policy.kept(probe);
            record(probe, Outcome.KEPT, baseline, m);
            baseline = m;
            base = after;
            cooldowns.kept(probe);
        } else {
            policy.steppedBack();
            Probe back = probe.back("step back: " + String.format(Locale.ROOT, probe.increase()
                            ? "%.1f/s after vs %.1f/s before (needed +%.0f%%)"
                            : "%.1f/s after vs %.1f/s before (allowed -%.0f%%)", m, baseline,
                    100 * AcceptanceRule.threshold(probe.increase(), noiseOfAll)));
            apply(back, Outcome.REVERTED);
            record(back, Outcome.REVERTED, baseline, m);
            cooldowns.steppedBack(probe);
            if (!pause(1)) {
                return false;
            }
            // Back where 'base' was measured: measure again, for the noise and a fresh baseline.
            MeasuredWindow again = measure();
            if (again == null) {
                return false;
            }
            noise.observe(base, again);
            baseline = (base.throughput() + again.throughput()) / 2;
            base = again;
        }
        probing = false;
        return true;
    }

    /** Measures once and lets the policy remember what it saw; null when closed. */
    private MeasuredWindow measure() {
        MeasuredWindow w = meter.measure(this::closed);
        if (w == null) {
            return null;
        }
        cooldowns.advance(w.windows());
        lastItems = Math.max(1, w.items());
        policy.observe(w);
        return w;
    }

    /** Waits {@code windows} windows; false when closed meanwhile. */
    private boolean pause(int windows) {
        long until = clock.nanoTime() + windows * budget.window().toNanos();
        while (!closed) {
            long left = until - clock.nanoTime();
            if (left <= 0) {
                cooldowns.advance(windows);
                return true;
            }
            clock.parkNanos(left);
        }
        return false;
    }

    /**
     * Makes the change (and its partner's); {@code outcome} (probe, reverted, budget) and the reason go to the
     * stats and the trace. False when the pipeline refuses it (then the stage's knob is left alone from now on).
     */
    private boolean apply(Probe p, Outcome outcome) {
        if (!applyOne(p, outcome)) {
            return false;
        }
        if (p.partner() != null && !applyOne(p.partner(), outcome)) {
            applyOne(new Probe(p.stage(), p.knob(), p.to(), p.from(), "step back: " + p.partner().stage() + " cannot change"),
                    Outcome.REVERTED);
            return false;
        }
        return true;
    }

    private boolean applyOne(Probe p, Outcome outcome) {
        String reason = "autotune " + outcome + ": " + p.reason();
        try {
            if (p.stage().equals("sink")) {
                pipeline.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(p.to()), reason);
            } else if (p.knob() == Knob.CONCURRENCY) {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withConcurrency(p.to()), reason);
            } else {
                pipeline.reconfigure(p.stage(), StageConfig.EMPTY.withQueueCapacity(p.to()), reason);
            }
            lastChangeNanos = clock.nanoTime();
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            policy.fixed(p.stage(), p.knob());
            return false;
        }
    }

    private void record(Probe p, Outcome outcome, double before, double after) {
        long at = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNanos);
        for (Probe q = p; q != null; q = q.partner()) {
            changes.add(new AutotuneChange(at, q.stage(), q.knob(), q.from(), q.to(), q.reason(), outcome,
                    Math.round(before * 10) / 10.0, Math.round(after * 10) / 10.0));
        }
    }
}
