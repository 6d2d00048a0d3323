package dev.stoker.tune;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.ProcessStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.tune.internal.AutotuneBudget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Measures a running pipeline for the online tuner over the next {@link AutotuneBudget#probeWindows()} windows,
 * longer (up to {@link #MAX_STRETCH} times) until {@link AutotuneBudget#minItems()} items were delivered. The
 * throughput is the rate over the ticks ({@link #TICKS_PER_WINDOW} per window) that were not stalls
 * ({@link TickRate}); the stage signals come from the span as a whole, and each stage's input queue is looked at
 * every tick (the share of ticks it was empty).
 */
record WindowMeter(Pipeline<?> pipeline, AutotuneBudget budget, NanoClock clock) implements Meter {
    static final int TICKS_PER_WINDOW = 5;
    /**
     * A measurement waiting for {@link AutotuneBudget#minItems()} stops at this many times its windows (a loader
     * at one batch a second, with the defaults: 20 s, not the minute 20 items would take at worst).
     */
    static final int MAX_STRETCH = 20;

    @Override
    public MeasuredWindow measure(BooleanSupplier closed) {
        Sample a = take(pipeline.stats());
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
            while (!closed.getAsBoolean() && clock.nanoTime() < until) {
                clock.parkNanos(until - clock.nanoTime());
            }
            if (closed.getAsBoolean()) {
                return null;
            }
            long now = clock.nanoTime();
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
        Sample b = take(pipeline.stats());
        double throughput = TickRate.of(ticksSeen.stream().mapToLong(t -> t[0]).toArray(),
                ticksSeen.stream().mapToLong(t -> t[1]).toArray());
        return between(a, b, throughput, emptyTicks, sinkFullTicks, ticks);
    }

    /** Cumulative counters at one instant. */
    private record Sample(long nanos, long delivered, double consumerWaitMillis, long cpuNanos, Map<String, StageStats> stages) {
    }

    private Sample take(PipelineStats s) {
        Map<String, StageStats> byName = new HashMap<>();
        for (StageStats st : s.stages()) {
            byName.put(st.name(), st);
        }
        return new Sample(clock.nanoTime(), s.sink().delivered(), s.sink().consumerWaitMillis(), ProcessStats.cpuNanos(), byName);
    }

    /** The span from {@code a} to {@code b}, with what the ticks between them saw. */
    private static MeasuredWindow between(Sample a, Sample b, double throughput, Map<String, Integer> emptyTicks,
                                          int sinkFullTicks, int ticks) {
        double dt = Math.max(1e-6, (b.nanos() - a.nanos()) / 1e9);
        Map<String, Double> busy = new HashMap<>();
        Map<String, Double> task = new HashMap<>();
        Map<String, Integer> conc = new HashMap<>();
        for (StageStats s : b.stages().values()) {
            StageStats before = a.stages().get(s.name());
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
        Map<String, Double> queueEmpty = new HashMap<>();
        for (String stage : conc.keySet()) {
            queueEmpty.put(stage, emptyTicks.getOrDefault(stage, 0) / (double) ticks);
        }
        double cores = a.cpuNanos() < 0 || b.cpuNanos() < 0 ? Double.NaN : (b.cpuNanos() - a.cpuNanos()) / 1e9 / dt;
        double consumerWaitShare = (b.consumerWaitMillis() - a.consumerWaitMillis()) / 1000 / dt;
        return new MeasuredWindow(dt, throughput, Math.min(1, consumerWaitShare), cores, busy, task, conc, queueEmpty,
                sinkFullTicks / (double) ticks, b.delivered() - a.delivered(),
                (ticks + TICKS_PER_WINDOW - 1) / TICKS_PER_WINDOW);
    }
}
