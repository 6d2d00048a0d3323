package dev.stoker.cli;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.tune.HeadspaceResult;
import dev.stoker.tune.ModelStep;
import dev.stoker.tune.TensorBatch;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * The loop of {@code stoker train}, on the calling thread: ask the loader for a batch (the wait), run the
 * model's step on a view of it (the train), close it; the first {@code cacheBatches} are also copied for the
 * compute floor, after their step and outside both timings. Each step is a {@code batch} slice on the
 * trace, with its {@code wait} and {@code train} slices inside, beside the pipeline's own tasks.
 */
final class TrainLoop {
    private static final long LIVE_PERIOD_NANOS = 1_000_000_000L;

    private final ModelStep step;
    private final TraceRecorder trace;
    private final ClipBatchCache cache = new ClipBatchCache();
    private final List<TensorBatch> cached = new ArrayList<>();
    private final List<Double> losses = new ArrayList<>();
    private final List<Long> waitNanos = new ArrayList<>();
    private final List<Long> trainNanos = new ArrayList<>();
    private final List<Integer> samples = new ArrayList<>();
    private int floorBatches;

    TrainLoop(ModelStep step, TraceRecorder trace) {
        this.step = step;
        this.trace = trace;
    }

    /** Trains up to {@code steps} steps on {@code batches}; prints a live line about once a second. */
    void train(Iterator<ClipBatch> batches, int steps, int cacheBatches, PrintWriter out, boolean terminal) throws Exception {
        Thread self = Thread.currentThread();
        long lastPrint = System.nanoTime();
        int lastPrintStep = 0;
        for (int s = 0; s < steps; s++) {
            long t0 = System.nanoTime();
            if (!batches.hasNext()) {
                break;
            }
            ClipBatch batch = batches.next();
            long t1 = System.nanoTime();
            long t2;
            int n;
            try {
                n = batch.clipCount();
                step.accept(cache.view(batch));
                t2 = System.nanoTime();
                if (cached.size() < cacheBatches) {
                    cached.add(cache.copy(batch));
                }
            } finally {
                batch.close();
            }
            losses.add(step.lastLoss());
            waitNanos.add(t1 - t0);
            trainNanos.add(t2 - t1);
            samples.add(n);
            if (trace != null) {
                trace.slice("batch", "train", self, t0, t2 - t0, s, n + " clips");
                trace.slice("wait", "train", self, t0, t1 - t0, s, null);
                trace.slice("train", "train", self, t1, t2 - t1, s, String.format(Locale.ROOT, "loss %.4f", step.lastLoss()));
            }
            if (t2 - lastPrint >= LIVE_PERIOD_NANOS || s + 1 == steps) {
                out.print(liveLine(s + 1, steps, lastPrintStep) + (terminal ? "\r" : "\n"));
                out.flush();
                lastPrint = t2;
                lastPrintStep = s + 1;
            }
        }
        if (terminal) {
            out.println();
        }
    }

    /** step, loss, samples/s and the share of time spent waiting, over the steps since the last line. */
    private String liveLine(int done, int steps, int from) {
        long wait = 0;
        long all = 0;
        long clips = 0;
        for (int i = from; i < done; i++) {
            wait += waitNanos.get(i);
            all += waitNanos.get(i) + trainNanos.get(i);
            clips += samples.get(i);
        }
        return String.format(Locale.ROOT, "step %d/%d  loss %.4f  %.1f samples/s  data wait %.0f%%",
                done, steps, losses.get(done - 1), all == 0 ? 0 : clips * 1e9 / all, all == 0 ? 0 : 100.0 * wait / all);
    }

    /**
     * The same model stepped on the cached copies in turn (1 unmeasured step, then {@code floorSteps}): the
     * compute floor, to be run once the loader has stopped. Frees the copies.
     */
    long[] floor(int floorSteps) throws Exception {
        floorBatches = cached.size();
        try {
            if (cached.isEmpty()) {
                return new long[0];
            }
            step.accept(cached.get(0));
            long[] nanos = new long[floorSteps];
            for (int i = 0; i < floorSteps; i++) {
                long t0 = System.nanoTime();
                step.accept(cached.get(i % cached.size()));
                nanos[i] = System.nanoTime() - t0;
            }
            return nanos;
        } finally {
            cached.forEach(cache::releaseCopy);
            cached.clear();
        }
    }

    int stepsDone() { return losses.size(); }

    /** The run's figures, the first {@code warmup} steps left out of times and rates (start-up, allocation). */
    TrainResult.Steps steps(int warmup) {
        Measured m = measured(warmup);
        return new TrainResult.Steps(stepsDone(), m.from, millis(percentile(m.wallNanos, 0.5)),
                millis(percentile(m.wallNanos, 0.99)), m.clips * 1e9 / m.allNanos(), m.waitNanos / m.allNanos(),
                losses.isEmpty() ? Double.NaN : losses.getFirst(), losses.isEmpty() ? Double.NaN : losses.getLast(),
                List.copyOf(losses), waitNanos.stream().map(TrainLoop::millis).toList(),
                trainNanos.stream().map(TrainLoop::millis).toList());
    }

    /** The headspace verdict: these steps with the loader against {@code floorNanos} on cached batches. */
    HeadspaceResult headspace(int warmup, long[] floorNanos, String loaderVerdict) {
        Measured m = measured(warmup);
        int steps = m.wallNanos.length;
        double achieved = m.allNanos() / steps;
        double floor = Arrays.stream(floorNanos).average().orElse(Double.NaN);
        double perBatch = m.clips / steps;
        return new HeadspaceResult(floor / 1e6, millis(percentile(floorNanos, 0.5)), achieved / 1e6,
                millis(percentile(m.wallNanos, 0.5)), m.trainNanos / steps / 1e6, m.waitNanos / steps / 1e6,
                m.waitNanos / m.allNanos(), achieved / floor, perBatch * 1e9 / achieved, perBatch * 1e9 / floor, steps,
                m.from, floorBatches, loaderVerdict);
    }

    /** The steps after the warm-up (at least the last one): each one's wall time, and the sums. */
    private record Measured(int from, long[] wallNanos, double waitNanos, double trainNanos, double clips) {
        double allNanos() {
            return waitNanos + trainNanos;
        }
    }

    private Measured measured(int warmup) {
        int from = Math.min(warmup, Math.max(0, stepsDone() - 1));
        long[] wall = new long[stepsDone() - from];
        double wait = 0;
        double train = 0;
        double clips = 0;
        for (int i = from; i < stepsDone(); i++) {
            wall[i - from] = waitNanos.get(i) + trainNanos.get(i);
            wait += waitNanos.get(i);
            train += trainNanos.get(i);
            clips += samples.get(i);
        }
        return new Measured(from, wall, wait, train, clips);
    }

    /** The nearest-rank percentile of {@code values} ({@code NaN} when empty). */
    static double percentile(long[] values, double q) {
        if (values.length == 0) {
            return Double.NaN;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.clamp(rank, 0, sorted.length - 1)];
    }

    private static double millis(double nanos) {
        return nanos / 1e6;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }
}
