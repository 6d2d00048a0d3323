package dev.stoker.tune;

import dev.stoker.pipeline.Bottleneck;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import java.util.List;
import java.util.Objects;

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
 * pipeline ({@link #noise()}); otherwise it steps back ({@link AcceptanceRule}). Where only the noise decides (a gain above 5% that does
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
    private final AutotuneLoop loop;
    private final Thread thread;

    private Autotune(AutotuneLoop loop) {
        this.loop = loop;
        this.thread = Thread.ofPlatform().name("stoker-autotune").daemon(true).unstarted(loop::run);
    }

    /** Starts tuning {@code pipeline} while it runs; {@link #close()} stops (the pipeline keeps its last settings). */
    public static Autotune online(Pipeline<?> pipeline, AutotuneBudget budget) {
        Objects.requireNonNull(pipeline, "pipeline");
        Objects.requireNonNull(budget, "budget");
        Autotune a = new Autotune(new AutotuneLoop(TunedPipeline.of(pipeline), new WindowMeter(pipeline, budget, NanoClock.SYSTEM),
                budget, NanoClock.SYSTEM));
        a.thread.start();
        return a;
    }

    /** Every change so far, probes and steps back included. */
    public List<AutotuneChange> changes() { return loop.changes(); }

    /** The changes that stayed. */
    public List<AutotuneChange> kept() {
        return changes().stream()
                .filter(c -> c.outcome() == AutotuneChange.Outcome.KEPT || c.outcome() == AutotuneChange.Outcome.BUDGET)
                .toList();
    }

    /** The latest baseline throughput (items/s at the sink). */
    public double throughput() { return loop.baseline(); }

    /**
     * The noise of the latest measurement: the relative difference expected between two measurements of the
     * unchanged pipeline that count as many items (NaN before the first pair). It is learned from such pairs
     * (the median of the last seven, each scaled by the square root of the items it counted, so that a slow
     * start does not set it for a faster pipeline later). An increase is kept only above max(5%, 2 x noise), a
     * decrease unless it lost more than max(3%, 1.25 x noise), and never one that lost more than 15% (a
     * median difference is about 0.67 standard deviations of a difference: 2 x noise is about 1.35 of them).
     */
    public double noise() { return loop.noise(); }

    /** Whether no probe is running and none has been for {@code windows} windows. */
    public boolean settled(int windows) {
        return loop.settled(windows);
    }

    @Override
    public void close() {
        loop.close();
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
