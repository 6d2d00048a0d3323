package dev.stoker.pipeline.internal;

/**
 * What a stage's function waits on inside its call, told to its worker's clock. A wait for a buffer the consumer's
 * batches hold (a pooled batch, a clip buffer) is back-pressure, not work: counted as busy, it made the waiting stage
 * look saturated and named it the bottleneck when the consumer was, and its advice (more workers there) could not help.
 *
 * <pre>{@code
 * try (StageWaits.Wait w = StageWaits.downstream()) {
 *     released.await();
 * }
 * }</pre>
 */
public final class StageWaits {
    private static final Wait NONE = () -> { };

    private StageWaits() {
    }

    /** The end of a wait: the worker is back to what it was doing. */
    public interface Wait extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Counts this thread's worker (if it is one) as back-pressured until the returned wait is closed; on any other
     * thread, nothing.
     */
    public static Wait downstream() {
        WorkerClock clock = WorkerClock.current();
        if (clock == null) {
            return NONE;
        }
        int before = clock.state();
        clock.enter(WorkerClock.BACK_PRESSURED);
        return () -> clock.enter(before);
    }
}
