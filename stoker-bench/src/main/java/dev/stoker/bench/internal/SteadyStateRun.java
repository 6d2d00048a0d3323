package dev.stoker.bench.internal;

import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.pipeline.ProcessStats;
import dev.stoker.pipeline.SinkStats;
import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one steady-state measurement of a loader, whichever it is ({@code stoker bench} on videos or shards, on the
 * CPU or a GPU, and each run of {@code stoker bench formats}): batches taken as a training loop takes them, the
 * first ones counted as warm-up, samples/s and the process's CPU time over the rest. The clock starts when the
 * run is {@link #start started} (so opening the loader counts in the first batch's time) and stops at
 * {@link #finish}, which the caller places: before or after closing the loader, as its figures have always been.
 *
 * <p>A run is one use: start, {@link #drive} the loader's batches, finish. {@link #samples} may be read from
 * other threads while it runs (a live view, a dashboard).
 */
public final class SteadyStateRun {
    /** Work done on each batch while it is open (the clips it holds); its index counts from 0. */
    @FunctionalInterface
    public interface BatchStep<B> {
        void accept(long index, B batch) throws IOException;
    }

    private final long batches;
    private final long warmupBatches;
    private volatile boolean stopRequested;
    private volatile boolean driving;
    private final long consumerStepNanos;
    private final MemoryTimeline memory;
    private final long startNanos = System.nanoTime();
    private final AtomicLong samples = new AtomicLong();
    private long done;
    private long firstBatchNanos = -1;
    private long steadyStartNanos = -1;
    private long steadyStartCpuNanos = -1;
    private long steadyStartSamples;
    private volatile SinkStats sinkAfterWarmup;

    private SteadyStateRun(Settings settings) {
        this.batches = settings.batches;
        this.warmupBatches = settings.warmupBatches;
        this.consumerStepNanos = settings.consumerStepNanos;
        this.memory = settings.memory;
        if (warmupBatches <= 0) { // no warm-up: the steady state is the whole run
            steadyStartNanos = startNanos;
            steadyStartCpuNanos = ProcessStats.cpuNanos();
        }
    }

    /** A run of {@code batches} batches whose warm-up is {@link #defaultWarmup a tenth of them}; the clock starts now. */
    public static SteadyStateRun start(long batches) {
        return settings(batches).start();
    }

    /** Settings for a run of {@code batches} batches, to change before {@link Settings#start}. */
    public static Settings settings(long batches) {
        return new Settings(batches);
    }

    /** A tenth of the run, at least 2 batches: pools and decoders fill up and the JIT compiles in them. */
    public static long defaultWarmup(long batches) {
        return Math.max(2, batches / 10);
    }

    /** How a run goes: its length, its warm-up, a synthetic consumer, what else it records. */
    public static final class Settings {
        private final long batches;
        private long warmupBatches;
        private long consumerStepNanos;
        private MemoryTimeline memory;

        private Settings(long batches) {
            if (batches < 1) {
                throw new IllegalArgumentException("batches: " + batches + " (expected: 1+)");
            }
            this.batches = batches;
            this.warmupBatches = defaultWarmup(batches);
        }

        /** Batches before the steady state starts; 0: none, the whole run is measured. */
        public Settings warmup(long batches) {
            this.warmupBatches = batches;
            return this;
        }

        /** A synthetic training step: waits {@code millis} after each batch is closed (a consumer slower than the loader). */
        public Settings consumerStep(double millis) {
            this.consumerStepNanos = (long) (millis * 1e6);
            return this;
        }

        /** Memory readings over the run (at the end of warm-up, then every few batches). */
        public Settings memory(MemoryTimeline timeline) {
            this.memory = timeline;
            return this;
        }

        /** Starts the clock. */
        public SteadyStateRun start() {
            return new SteadyStateRun(this);
        }
    }

    /**
     * Takes batches from {@code loader} until the run has its batches or the loader has no more: each one through
     * {@code step} (may be null) while open, then closed, then the consumer's step.
     */
    public <B extends LoadedBatch> void drive(ClipLoader<? extends B> loader, BatchStep<? super B> step)
            throws IOException, InterruptedException {
        driving = true;
        try {
            Iterator<? extends B> it = loader.iterator();
            while (!stopRequested && done < batches && it.hasNext()) {
                try (B b = it.next()) {
                    if (step != null) {
                        step.accept(done, b);
                    }
                    samples.addAndGet(b.clipCount());
                }
                if (consumerStepNanos > 0) {
                    Thread.sleep(consumerStepNanos / 1_000_000, (int) (consumerStepNanos % 1_000_000));
                }
                done++;
                long now = System.nanoTime();
                if (firstBatchNanos < 0) {
                    firstBatchNanos = now - startNanos;
                }
                if (steadyStartNanos < 0 && done >= warmupBatches) {
                    steadyStartNanos = now;
                    steadyStartCpuNanos = ProcessStats.cpuNanos();
                    steadyStartSamples = samples.get();
                    if (memory != null) {
                        memory.warmupEnded();
                    }
                    sinkAfterWarmup = loader.pipeline().stats().sink();
                }
                if (memory != null) {
                    memory.afterBatch(done);
                }
            }
        } finally {
            driving = false;
        }
    }

    /** Ends {@link #drive} after the batch it is taking (a Ctrl-C): the figures are those of the batches so far. */
    public void stop() { stopRequested = true; }

    /** Whether {@link #stop} was called. */
    public boolean stopped() { return stopRequested; }

    /** Whether {@link #drive} is taking batches: a stop now ends it with figures to report. Any thread. */
    public boolean driving() { return driving; }

    /** Samples (clips) taken so far; safe from any thread. */
    public long samples() { return samples.get(); }

    /** The consumer's side of the pipeline when the warm-up ended (to subtract from later readings); null before. */
    public SinkStats sinkAfterWarmup() { return sinkAfterWarmup; }

    /** Batches taken so far. */
    public long batches() { return done; }

    /** Stops the clock: the figures of the run. */
    public Figures finish() {
        long endNanos = System.nanoTime();
        long endCpuNanos = ProcessStats.cpuNanos();
        long total = samples.get();
        boolean steady = steadyStartNanos >= 0;
        double cpu = steadyStartCpuNanos >= 0 && endCpuNanos >= 0 ? (endCpuNanos - steadyStartCpuNanos) / 1e9 : Double.NaN;
        return new Figures(done, total, (endNanos - startNanos) / 1e9, firstBatchNanos / 1e9,
                steady ? total - steadyStartSamples : total, steady ? (endNanos - steadyStartNanos) / 1e9 : (endNanos - startNanos) / 1e9,
                cpu, steady);
    }

    /**
     * What a run measured.
     *
     * @param batches           batches taken
     * @param samples           samples (clips) in them
     * @param seconds           the whole run, from {@link #start} (opening the loader included)
     * @param firstBatchSeconds from the start to the first batch's end (negative: no batch)
     * @param steadySamples     samples after the warm-up (all of them when it never ended)
     * @param steadySeconds     time after the warm-up (the whole run when it never ended)
     * @param steadyCpuSeconds  the process's CPU time after the warm-up; NaN when unknown or the warm-up never ended
     * @param warmedUp          whether the warm-up ended (with none, the whole run is the steady state)
     */
    public record Figures(long batches, long samples, double seconds, double firstBatchSeconds, long steadySamples,
                          double steadySeconds, double steadyCpuSeconds, boolean warmedUp) {

        /** Samples per second in the steady state; over the whole run when the steady state has none. */
        public double samplesPerSecond() {
            return steadySeconds > 0 && steadySamples > 0 ? steadySamples / steadySeconds : samples / seconds;
        }

        /** The process's CPU seconds per steady-state sample; NaN when not known. */
        public double cpuSecondsPerSample() {
            return steadySamples > 0 ? steadyCpuSeconds / steadySamples : Double.NaN;
        }
    }
}
