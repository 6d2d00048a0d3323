package dev.stoker.bench.internal;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Memory over a bench run, for the question users ask of a loader that runs for days: does it stay
 * flat? Readings at the start, at the end of warm-up and at the end, peaks, and a timeline of at most
 * about {@value #POINTS} points (every {@code batches / POINTS} batches, at least every
 * {@value #MIN_EVERY}), so that a 5000-batch run's JSON shows the trend without growing with the run.
 */
public final class MemoryTimeline {
    static final int POINTS = 100;
    static final int MIN_EVERY = 20;

    /** One reading: after which batch, how far into the run. */
    public record Point(@JsonProperty("batch") long batch, @JsonProperty("seconds") double seconds,
                 @JsonProperty("memory") MemoryProbe memory) { }

    private final long every;
    private final long startNanos = System.nanoTime();
    private final MemoryProbe start = MemoryProbe.read();
    private final List<Point> points = new ArrayList<>();
    private MemoryProbe afterWarmup;
    private MemoryProbe max = start;

    public MemoryTimeline(long batches) {
        this.every = Math.max(MIN_EVERY, batches / POINTS);
    }

    /** Called after every batch; reads memory only every {@link #every} batches. */
    public void afterBatch(long batch) {
        if (batch % every == 0) {
            MemoryProbe now = MemoryProbe.read();
            max = max.max(now);
            points.add(new Point(batch, (System.nanoTime() - startNanos) / 1e9, now));
        }
    }

    public void warmupEnded() {
        afterWarmup = MemoryProbe.read();
        max = max.max(afterWarmup);
    }

    public BenchResult.Memory finish() {
        MemoryProbe end = MemoryProbe.read();
        return new BenchResult.Memory(start, afterWarmup, end, max.max(end), List.copyOf(points));
    }

    /**
     * The summary's line: resident set and live heap from the end of warm-up to the end. Growth there,
     * not from the start (pools and decoders fill up during warm-up), is what a leak looks like.
     */
    public static String drift(BenchResult.Memory memory) {
        MemoryProbe from = memory.afterWarmup() != null ? memory.afterWarmup() : memory.start();
        MemoryProbe to = memory.end();
        return String.format(Locale.ROOT, "memory           RSS %s -> %s after warm-up (%s), max %s; off-heap max %s, %s at the"
                        + " end; heap live after GC %s -> %s; start RSS %s%n",
                MemoryProbe.mib(from.rssBytes()), MemoryProbe.mib(to.rssBytes()), percent(from.rssBytes(), to.rssBytes()),
                MemoryProbe.mib(memory.max().rssBytes()), MemoryProbe.mib(memory.max().offheapBytes()),
                MemoryProbe.mib(to.offheapBytes()), MemoryProbe.mib(from.heapAfterGcBytes()), MemoryProbe.mib(to.heapAfterGcBytes()),
                MemoryProbe.mib(memory.start().rssBytes()));
    }

    private static String percent(long from, long to) {
        return from <= 0 || to < 0 ? "n/a" : String.format(Locale.ROOT, "%+.1f%%", 100.0 * (to - from) / from);
    }
}
