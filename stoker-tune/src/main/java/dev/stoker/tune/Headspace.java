package dev.stoker.tune;

import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.tune.internal.BatchCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Is training waiting for data? Runs the consumer's {@link TrainingStep} on the loader's batches, then
 * on copies of the first batches replayed from memory (data instantly there), and compares the two.
 *
 * <p>The run, on the calling thread:
 * <ol>
 *   <li><b>cache</b>: the first {@code cachedBatches} batches are copied ({@link BatchCache#copy}) and
 *       released; not timed (the loader warms up meanwhile);</li>
 *   <li><b>loader phase</b>: {@code warmupSteps} steps, then {@code measuredSteps} timed steps, each
 *       asking the loader for a batch (the wait), running the step on it, releasing it;</li>
 *   <li><b>cached phase</b>: the same numbers of steps on the copies, in turn: the compute floor
 *       (with a {@link Pipeline}, once it has stopped loading ahead).</li>
 * </ol>
 * Times come from {@link System#nanoTime()} (a test's model of a loader and a step: a clock of its own). The loader
 * is neither closed nor drained: the caller owns it.
 *
 * <pre>{@code
 * HeadspaceResult r = Headspace.of(model::trainStep).warmupSteps(5).measuredSteps(50).run(loader);
 * System.out.println(r.summary());
 * }</pre>
 *
 * @param <B> the loader's batch type
 * @param <V> what the step receives (see {@link BatchCache})
 */
public final class Headspace<B, V> {
    static final long QUIET_TIMEOUT_MILLIS = 10_000;
    private static final long QUIET_POLL_MILLIS = 20;
    private static final long QUIET_MIN_NANOS = 100_000_000;

    private final TrainingStep<? super V> step;
    private final BatchCache<B, V> cache;
    private final int warmupSteps;
    private final int measuredSteps;
    private final int cachedBatches;
    private final ToIntFunction<? super V> samplesPerBatch;
    private final NanoClock clock;

    private Headspace(TrainingStep<? super V> step, BatchCache<B, V> cache, int warmupSteps, int measuredSteps,
                      int cachedBatches, ToIntFunction<? super V> samplesPerBatch, NanoClock clock) {
        this.step = Objects.requireNonNull(step, "step");
        this.cache = Objects.requireNonNull(cache, "cache");
        this.warmupSteps = warmupSteps;
        this.measuredSteps = measuredSteps;
        this.cachedBatches = cachedBatches;
        this.samplesPerBatch = Objects.requireNonNull(samplesPerBatch, "samplesPerBatch");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** For batches that stay valid when kept ({@link BatchCache#retaining()}): 5 warm-up, 50 measured steps, 8 cached batches. */
    public static <B> Headspace<B, B> of(TrainingStep<? super B> step) {
        return of(step, BatchCache.retaining());
    }

    /** For batches that must be copied to be kept, or released after their step (pooled off-heap buffers). */
    public static <B, V> Headspace<B, V> of(TrainingStep<? super V> step, BatchCache<B, V> cache) {
        return new Headspace<>(step, cache, 5, 50, 8, b -> 1, NanoClock.SYSTEM);
    }

    /** Steps run and not timed before each phase's measured steps (0+). */
    public Headspace<B, V> warmupSteps(int steps) {
        if (steps < 0) {
            throw new InvalidValueException("warmupSteps", steps, "0+");
        }
        return new Headspace<>(step, cache, steps, measuredSteps, cachedBatches, samplesPerBatch, clock);
    }

    /** Timed steps in each phase (1+). */
    public Headspace<B, V> measuredSteps(int steps) {
        if (steps < 1) {
            throw new InvalidValueException("measuredSteps", steps, "1+");
        }
        return new Headspace<>(step, cache, warmupSteps, steps, cachedBatches, samplesPerBatch, clock);
    }

    /** Batches copied and replayed in turn for the compute floor (1+; each one held in memory). */
    public Headspace<B, V> cachedBatches(int batches) {
        if (batches < 1) {
            throw new InvalidValueException("cachedBatches", batches, "1+");
        }
        return new Headspace<>(step, cache, warmupSteps, measuredSteps, batches, samplesPerBatch, clock);
    }

    /** Samples in a batch, for samples/s (default: 1, so samples/s is steps/s). */
    public Headspace<B, V> samplesPerBatch(ToIntFunction<? super V> samples) {
        return new Headspace<>(step, cache, warmupSteps, measuredSteps, cachedBatches, samples, clock);
    }

    /** Times the steps on {@code time} instead of the system's clock (a test's model of a loader and a step). */
    Headspace<B, V> clock(NanoClock time) {
        return new Headspace<>(step, cache, warmupSteps, measuredSteps, cachedBatches, samplesPerBatch, time);
    }

    /** Batches the loader must deliver: the cached ones, then warm-up and measured steps. */
    public int batchesNeeded() {
        return cachedBatches + warmupSteps + measuredSteps;
    }

    /**
     * Measures on a pipeline's batches. Before the cached phase it waits (up to
     * {@value #QUIET_TIMEOUT_MILLIS} ms) for the pipeline to go quiet, its buffers full and no task
     * running, so that loading ahead does not take CPU from the steps that set the floor. The result
     * carries the pipeline's bottleneck verdict over the loader phase's measured steps
     * ({@link PipelineStats#since}): since the start, the cache filling (the loader flat out, nothing to keep up
     * with) would call a loader saturated that kept up with the steps.
     */
    public HeadspaceResult run(Pipeline<? extends B> pipeline) {
        AtomicReference<PipelineStats> measuredFrom = new AtomicReference<>();
        return run(pipeline.iterator(), () -> measuredFrom.set(pipeline.stats()), () -> {
            PipelineStats stats = pipeline.stats().since(measuredFrom.get());
            return stats.verdict() == null ? null : stats.verdict().line();
        }, () -> awaitQuiet(pipeline));
    }

    /**
     * Measures on the batches of an iterable (one iterator is taken). A loader that keeps working in the
     * background after the loader phase (filling its buffers) competes with the first cached steps:
     * give it warm-up steps, or use {@link #run(Pipeline)}.
     */
    public HeadspaceResult run(Iterable<? extends B> batches) {
        return run(batches.iterator());
    }

    /** Measures on the next {@link #batchesNeeded()} batches of an iterator (see {@link #run(Iterable)}). */
    public HeadspaceResult run(Iterator<? extends B> batches) {
        return run(batches, () -> { }, () -> null, () -> { });
    }

    /**
     * Waits until no stage has taken or emitted an item for twice its slowest stage's p99 task time (at
     * least 100 ms): every stage then waits for room downstream. Gives up at the timeout.
     */
    private static void awaitQuiet(Pipeline<?> pipeline) {
        long deadline = System.nanoTime() + QUIET_TIMEOUT_MILLIS * 1_000_000;
        long lastProgress = -1;
        long quietSinceNanos = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long progress = 0;
            long slowestTaskNanos = 0;
            for (StageStats s : pipeline.stats().stages()) {
                progress += s.itemsIn() + s.itemsOut() + s.failures();
                if (s.taskTime() != null) {
                    slowestTaskNanos = Math.max(slowestTaskNanos, s.taskTime().p99Micros() * 1000);
                }
            }
            long now = System.nanoTime();
            if (progress != lastProgress) {
                lastProgress = progress;
                quietSinceNanos = now;
            } else if (now - quietSinceNanos >= Math.max(QUIET_MIN_NANOS, 2 * slowestTaskNanos)) {
                return;
            }
            try {
                Thread.sleep(QUIET_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private HeadspaceResult run(Iterator<? extends B> batches, Runnable measuringWithLoader,
                                Supplier<String> verdictAfterLoading, Runnable beforeCachedPhase) {
        List<V> copies = new ArrayList<>(cachedBatches);
        try {
            int delivered = 0;
            while (copies.size() < cachedBatches) {
                B batch = next(batches, delivered++);
                try {
                    copies.add(cache.copy(batch));
                } finally {
                    cache.release(batch);
                }
            }
            Phase loader = new Phase(measuredSteps);
            for (int i = 0; i < warmupSteps + measuredSteps; i++) {
                if (i == warmupSteps) {
                    measuringWithLoader.run();
                }
                long askNanos = clock.nanoTime();
                B batch = next(batches, delivered++);
                int samples;
                long gotNanos;
                long doneNanos;
                try {
                    V view = cache.view(batch);
                    samples = samplesPerBatch.applyAsInt(view);
                    gotNanos = clock.nanoTime();   // the wait: asking for the batch and viewing it
                    runStep(view, "loader", i);
                    doneNanos = clock.nanoTime();
                } finally {
                    cache.release(batch);
                }
                if (i >= warmupSteps) {
                    loader.record(i - warmupSteps, gotNanos - askNanos, doneNanos - gotNanos, clock.nanoTime() - askNanos, samples);
                }
            }
            String verdict = verdictAfterLoading.get();
            beforeCachedPhase.run();

            Phase cached = new Phase(measuredSteps);
            for (int i = 0; i < warmupSteps + measuredSteps; i++) {
                long askNanos = clock.nanoTime();
                V copy = copies.get(i % copies.size());
                int samples = samplesPerBatch.applyAsInt(copy);
                long gotNanos = clock.nanoTime();
                runStep(copy, "cached", i);
                long doneNanos = clock.nanoTime();
                if (i >= warmupSteps) {
                    cached.record(i - warmupSteps, gotNanos - askNanos, doneNanos - gotNanos, doneNanos - askNanos, samples);
                }
            }
            return result(loader, cached, verdict);
        } finally {
            RuntimeException failure = null;
            for (V copy : copies) {
                try {
                    cache.releaseCopy(copy);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    private B next(Iterator<? extends B> batches, int delivered) {
        if (!batches.hasNext()) {
            throw new IllegalStateException("the loader ended after " + delivered + " batches (expected: "
                    + batchesNeeded() + " = " + cachedBatches + " cached + " + warmupSteps + " warm-up + "
                    + measuredSteps + " measured; use fewer steps or an endless loader)");
        }
        return batches.next();
    }

    private void runStep(V batch, String phase, int index) {
        try {
            step.accept(batch);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("training step " + index + " (" + phase + " phase) failed: " + e.getMessage(), e);
        }
    }

    private HeadspaceResult result(Phase loader, Phase cached, String verdict) {
        double floor = cached.meanMillis(cached.stepNanos);
        double achieved = loader.meanMillis(loader.totalNanos);
        double waitShare = loader.sum(loader.totalNanos) == 0 ? 0
                : (double) loader.sum(loader.waitNanos) / loader.sum(loader.totalNanos);
        return new HeadspaceResult(floor, cached.medianMillis(cached.stepNanos), achieved,
                loader.medianMillis(loader.totalNanos), loader.meanMillis(loader.stepNanos),
                loader.meanMillis(loader.waitNanos), waitShare, floor > 0 ? achieved / floor : Double.NaN,
                loader.samplesPerSecond(), cached.samplesPerSecond(), measuredSteps, warmupSteps, cachedBatches, verdict);
    }

    /** The timings of one phase's measured steps. */
    private static final class Phase {
        final long[] waitNanos;
        final long[] stepNanos;
        final long[] totalNanos;
        long samples;

        Phase(int steps) {
            waitNanos = new long[steps];
            stepNanos = new long[steps];
            totalNanos = new long[steps];
        }

        void record(int i, long wait, long step, long total, int batchSamples) {
            waitNanos[i] = wait;
            stepNanos[i] = step;
            totalNanos[i] = total;
            samples += batchSamples;
        }

        long sum(long[] nanos) {
            long s = 0;
            for (long n : nanos) {
                s += n;
            }
            return s;
        }

        double meanMillis(long[] nanos) {
            return sum(nanos) / 1e6 / nanos.length;
        }

        double medianMillis(long[] nanos) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            return (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0) / 1e6;
        }

        double samplesPerSecond() {
            long total = sum(totalNanos);
            return total == 0 ? 0 : samples / (total / 1e9);
        }
    }
}
