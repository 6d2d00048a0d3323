package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.StageWaits;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One stage's counters since the pipeline started. The three time fractions (Flink's busy / idle /
 * back-pressured) split the stage's worker-time: busy running tasks, idle waiting for input,
 * back-pressured waiting for room downstream. A stage busy near 100% is saturated; a stage mostly idle
 * is starved by what is before it; a stage mostly back-pressured is blocked by what comes after it. A stage's
 * function that waits for something downstream holds (a pooled buffer the consumer's batches keep) says so with
 * {@link #waitingDownstream()}, so that the wait is back-pressure too, not work.
 *
 * @param name                  stage name
 * @param kind                  map, flatMap, filter or batch
 * @param concurrency           workers
 * @param itemsIn               items taken from the input queue
 * @param itemsOut              items emitted downstream
 * @param failures              failed tasks (items skipped)
 * @param dropped               items dropped by a null result or a filter
 * @param inFlight              tasks running now
 * @param busyFraction          share of worker-time spent in tasks
 * @param idleFraction          share of worker-time spent waiting for input
 * @param backPressuredFraction share of worker-time spent waiting for room downstream
 * @param taskTime              task duration distribution
 * @param inputQueue            occupancy of the input queue
 */
public record StageStats(String name, String kind, int concurrency, long itemsIn, long itemsOut, long failures,
                         long dropped, int inFlight, double busyFraction, double idleFraction,
                         double backPressuredFraction, TaskTimeStats taskTime, QueueStats inputQueue) {

    /** A wait {@link #waitingDownstream()} began; closing it ends it. */
    public interface DownstreamWait extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Counts the stage worker running on this thread (if it is one) as back-pressured until the returned wait is
     * closed: {@code try (var w = StageStats.waitingDownstream()) { released.await(); }}. Counted as busy, a wait for
     * a buffer the consumer holds made the waiting stage look saturated, the bottleneck, when the consumer was.
     */
    public static DownstreamWait waitingDownstream() { return StageWaits.downstream(null); }

    /**
     * {@link #waitingDownstream()}, and should the pipeline stall meanwhile, the stall report says what the worker
     * waits for: {@code waitingFor.get()}, asked then, on the watchdog's thread, so that it can say who holds what at
     * that moment (a pool: whether the consumer holds every buffer), which a stack alone does not.
     */
    public static DownstreamWait waitingDownstream(Supplier<String> waitingFor) {
        return StageWaits.downstream(Objects.requireNonNull(waitingFor, "waitingFor"));
    }

    /**
     * This stage between {@code earlier} (taken {@code earlierMillis} into the run) and now ({@code nowMillis}): the
     * shares of the window, weighted by the elapsed times, as {@link PipelineStats#since} explains.
     */
    StageStats since(StageStats earlier, long earlierMillis, long nowMillis) {
        double window = nowMillis - earlierMillis;
        double busy = share(busyFraction, earlier.busyFraction, earlierMillis, nowMillis, window);
        double idle = share(idleFraction, earlier.idleFraction, earlierMillis, nowMillis, window);
        double blocked = share(backPressuredFraction, earlier.backPressuredFraction, earlierMillis, nowMillis, window);
        double total = busy + idle + blocked;
        if (total > 0) {   // the weighting is exact only where the workers' time grew with the clock: shares sum to 1
            busy /= total;
            idle /= total;
            blocked /= total;
        }
        return new StageStats(name, kind, concurrency, itemsIn - earlier.itemsIn, itemsOut - earlier.itemsOut,
                failures - earlier.failures, dropped - earlier.dropped, inFlight, busy, idle, blocked, taskTime,
                inputQueue);
    }

    private static double share(double now, double then, long thenMillis, long nowMillis, double window) {
        return Math.clamp((now * nowMillis - then * thenMillis) / window, 0.0, 1.0);
    }
}
