package dev.stoker.observe;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Prints a pipeline's stats table every period, with the throughput of the last period on top
 * (the table's own rate is over the whole run). Close it before or after the pipeline; it stops its
 * thread either way.
 *
 * <pre>{@code
 * try (Pipeline<Batch> p = ...; StatsReporter r = StatsReporter.start(p, Duration.ofSeconds(5), System.err::print)) { ... }
 * }</pre>
 */
public final class StatsReporter implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stopped;

    private StatsReporter(Pipeline<?> pipeline, Duration period, Consumer<String> out) {
        long periodNanos = period.toNanos();
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("period: " + period + " (expected: > 0)");
        }
        this.thread = Thread.ofPlatform().name("stoker-stats-reporter").daemon(true).unstarted(() -> {
            long lastDelivered = 0;
            long lastNanos = System.nanoTime();
            while (!stopped) {
                LockSupport.parkNanos(periodNanos);
                if (stopped || Thread.interrupted()) {
                    return;
                }
                PipelineStats stats = pipeline.stats();
                long now = System.nanoTime();
                double rate = (stats.sink().delivered() - lastDelivered) / ((now - lastNanos) / 1e9);
                lastDelivered = stats.sink().delivered();
                lastNanos = now;
                out.accept(String.format(java.util.Locale.ROOT, "--- %.1f s: %.1f results/s in the last %.1f s ---%n%s",
                        stats.elapsedMillis() / 1000.0, rate, periodNanos / 1e9, stats.toTable()));
            }
        });
    }

    /** Starts printing {@code pipeline}'s stats to {@code out} every {@code period}. */
    public static StatsReporter start(Pipeline<?> pipeline, Duration period, Consumer<String> out) {
        StatsReporter reporter = new StatsReporter(Objects.requireNonNull(pipeline), period, Objects.requireNonNull(out));
        reporter.thread.start();
        return reporter;
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
