package dev.stoker.tune;

import dev.stoker.pipeline.Bottleneck;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.Reconfiguration.Knob;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.internal.AutotuneBudget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the online tuner probes next, read from the signals of a window of the state it stands at: one worker more
 * for the saturated stage ({@link Bottleneck#saturated}; for it and another stage busy 90%+ together, where one
 * alone would only move the limit to the other); one fewer when its task time grew with its concurrency
 * (contention), or when more do not pay and its task time at one fewer (where the tuner stood) is not known to be
 * as short; a deeper input queue for a bottleneck that keeps finding it empty; a larger sink when the consumer
 * waits although the sink fills at times; one fewer for a stage that mostly idles. A consumer-bound pipeline
 * ({@link Bottleneck#consumerBound}) has no bottleneck stage: only idle workers are given back. Over the CPU or
 * RAM budget it first gives back ({@link #budgetCorrection}). Probes that are cooling down ({@link Cooldowns})
 * are passed over.
 */
final class ProbePolicy {
    private final AutotuneBudget budget;
    private final Cooldowns cooldowns;
    private final Set<String> fixed = new HashSet<>();                    // "stage/knob" that cannot change
    private final Map<String, Map<Integer, Double>> taskMillisAt = new HashMap<>();   // stage -> concurrency -> task ms
    // The same, from windows of a state the tuner stood at (a baseline), never from a probe's own window: one that
    // was stepped back may have been a stall, whose swollen task times must not rule out a probe for good.
    private final Map<String, Map<Integer, Double>> settledTaskMillisAt = new HashMap<>();
    private String streakKey;      // the last kept probe's key, and how many kept in a row
    private int streak;

    ProbePolicy(AutotuneBudget budget, Cooldowns cooldowns) {
        this.budget = budget;
        this.cooldowns = cooldowns;
    }

    /** Remembers the task times of every busy stage at its concurrency (contention shows as a rise with workers). */
    void observe(MeasuredWindow w) {
        for (Map.Entry<String, Double> t : w.taskMillis().entrySet()) {
            if (w.busy().getOrDefault(t.getKey(), 0.0) > 0.5) {
                taskMillisAt.computeIfAbsent(t.getKey(), k -> new HashMap<>()).put(w.concurrency().get(t.getKey()), t.getValue());
            }
        }
    }

    /** The workload changed: task times measured before say nothing now. */
    void forgetTaskTimes() {
        taskMillisAt.clear();
        settledTaskMillisAt.clear();
    }

    /** The pipeline refused to change {@code knob} of {@code stage} (a batch stage's workers, a stage in another process). */
    void fixed(String stage, Knob knob) {
        fixed.add(stage + "/" + knob);
    }

    /** A probe was kept: two kept steps up in a row make the next one two workers. */
    void kept(Probe p) {
        streak = p.key().equals(streakKey) ? streak + 1 : 1;
        streakKey = p.key();
    }

    void steppedBack() {
        streak = 0;
    }

    private boolean canChange(String stage, Knob knob) {
        return !fixed.contains(stage + "/" + knob);
    }

    /**
     * A step that brings the pipeline back within its CPU or RAM budget, or null. Over RAM, the queue whose
     * items hold the most bytes is halved first (queued items wait; workers work); otherwise, and over CPU,
     * the stage with the most idle workers gives one up.
     */
    Probe budgetCorrection(MeasuredWindow w, PipelineConfig config) {
        boolean overCpu = !Double.isNaN(w.cores()) && w.cores() > budget.cores() * 1.05;
        boolean overRam = !budget.fitsRam(config);
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
                if (q != null && q > 1 && bytes > most && canChange(s.getKey(), Knob.QUEUE_CAPACITY)
                        && w.concurrency().containsKey(s.getKey())) {
                    most = bytes;
                    queue = s.getKey();
                }
            }
            Integer sink = config.sinkCapacity();
            if (sink != null && sink > 1 && sink * budget.bytesPerItem().getOrDefault("sink", 0L) > most) {
                return new Probe("sink", Knob.QUEUE_CAPACITY, sink, sink / 2, ramReason);
            }
            if (queue != null) {
                int q = config.stage(queue).queueCapacity();
                return new Probe(queue, Knob.QUEUE_CAPACITY, q, Math.max(1, q / 2), ramReason);
            }
        }
        String victim = null;
        double mostIdle = -1;
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            if (c.getValue() > 1 && canChange(c.getKey(), Knob.CONCURRENCY)) {
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
        return new Probe(victim, Knob.CONCURRENCY, c, c - 1, overCpu
                ? String.format(Locale.ROOT, "over the CPU budget (%.2f of %.2f cores)", w.cores(), budget.cores())
                : ramReason);
    }

    /** The next probe, from the signals of {@code w} (a window of the state the tuner stands at), or null to sit still. */
    Probe choose(MeasuredWindow w, PipelineConfig config) {
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
            if (empty >= 0.5 && most < 0.95 && q < budget.maxQueueCapacity() && canChange(bottleneck, Knob.QUEUE_CAPACITY)) {
                int bigger = Math.min(budget.maxQueueCapacity(), 2 * q);
                if (budget.fitsRam(config.withStage(bottleneck, config.stage(bottleneck).withQueueCapacity(bigger)))) {
                    deeper = new Probe(bottleneck, Knob.QUEUE_CAPACITY, q, bigger, String.format(Locale.ROOT,
                            "%s is busy %.0f%% of %d workers and its input queue was empty at %.0f%% of looks: fed in bursts,"
                                    + " a deeper queue", bottleneck, most * 100, c, empty * 100));
                }
            }
            if (deeper != null && most < 0.9) {
                options.add(deeper);
            }
            if (canChange(bottleneck, Knob.CONCURRENCY)) {
                Double now = w.taskMillis().get(bottleneck);
                Double fewer = taskMillisAt.getOrDefault(bottleneck, Map.of()).get(c - 1);
                boolean contention = now != null && fewer != null && c > 1 && now / fewer >= (double) c / (c - 1) * 0.95;
                if (contention) {
                    options.add(new Probe(bottleneck, Knob.CONCURRENCY, c, c - 1, String.format(Locale.ROOT,
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
                    if (cpuRoom && budget.fitsRam(config.withStage(bottleneck, config.stage(bottleneck).withConcurrency(c + up)))) {
                        options.add(new Probe(bottleneck, Knob.CONCURRENCY, c, c + up, String.format(Locale.ROOT,
                                "%s is saturated (busy %.0f%% of %d workers)", bottleneck, most * 100, c)));
                        break;
                    }
                }
                // Fewer may contend less: worth a probe unless the task time was measured at one worker fewer, while the
                // tuner stood there, and did not rise with the extra worker (then one fewer only loses 1/c).
                Double settledFewer = settledTaskMillisAt.getOrDefault(bottleneck, Map.of()).get(c - 1);
                boolean noContention = now != null && settledFewer != null && c > 1 && now / settledFewer < 1 + 0.5 / (c - 1);
                if (c > 1 && !noContention) {
                    options.add(new Probe(bottleneck, Knob.CONCURRENCY, c, c - 1, String.format(Locale.ROOT,
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
            if (budget.fitsRam(config.withSinkCapacity(bigger))) {
                options.add(new Probe("sink", Knob.QUEUE_CAPACITY, s, bigger, String.format(Locale.ROOT,
                        "the consumer waits %.0f%% of the time, yet the sink was full at %.0f%% of looks: bursts",
                        w.consumerWaitShare() * 100, w.sinkFullShare() * 100)));
            }
        }
        for (Map.Entry<String, Integer> c : w.concurrency().entrySet()) {
            double busy = w.busy().getOrDefault(c.getKey(), 0.0);
            if (c.getValue() > 1 && busy < 0.3 && !c.getKey().equals(bottleneck) && canChange(c.getKey(), Knob.CONCURRENCY)) {
                options.add(new Probe(c.getKey(), Knob.CONCURRENCY, c.getValue(), c.getValue() - 1, String.format(Locale.ROOT,
                        "%s is busy %.0f%% of %d workers: one fewer", c.getKey(), busy * 100, c.getValue())));
            }
        }
        for (Probe p : options) {
            if (!cooldowns.cooling(p.key())) {
                return p;
            }
        }
        return null;
    }

    /** One worker more for the bottleneck and for the next most saturated stage (busy 90%+), or null. */
    private Probe bothSaturated(MeasuredWindow w, PipelineConfig config, String bottleneck, double busy, double cpuPerWorker) {
        String second = null;
        double secondBusy = 0.9;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            String stage = b.getKey();
            if (!stage.equals(bottleneck) && b.getValue() >= secondBusy && canChange(stage, Knob.CONCURRENCY)
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
        if (!cpuRoom || !budget.fitsRam(more)) {
            return null;
        }
        String why = String.format(Locale.ROOT, "%s (busy %.0f%% of %d workers) and %s (busy %.0f%% of %d) are both"
                + " saturated: one worker more for each", bottleneck, busy * 100, c, second, secondBusy * 100, c2);
        return new Probe(bottleneck, Knob.CONCURRENCY, c, c + 1, why, new Probe(second, Knob.CONCURRENCY, c2, c2 + 1, why));
    }

    private static double busyWorkers(MeasuredWindow w) {
        double n = 0;
        for (Map.Entry<String, Double> b : w.busy().entrySet()) {
            n += b.getValue() * w.concurrency().getOrDefault(b.getKey(), 1);
        }
        return n;
    }
}
