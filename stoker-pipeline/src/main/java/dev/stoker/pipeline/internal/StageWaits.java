package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.StageStats;
import java.util.function.Supplier;

/** Where {@link StageStats#waitingDownstream()} meets the worker's clock of the thread it is called on. */
public final class StageWaits {
    private static final StageStats.DownstreamWait NONE = () -> { };

    private StageWaits() {
    }

    /**
     * This thread's worker (if it is one) counted as back-pressured until the wait is closed, and {@code waitingFor}
     * (null: nothing to say) what a stall report says it waits for meanwhile; elsewhere, nothing.
     */
    public static StageStats.DownstreamWait downstream(Supplier<String> waitingFor) {
        WorkerClock clock = WorkerClock.current();
        if (clock == null) {
            return NONE;
        }
        int before = clock.state();
        clock.enter(WorkerClock.BACK_PRESSURED);
        if (waitingFor == null) {
            return () -> clock.enter(before);   // nothing to say: no description to set and put back
        }
        Supplier<String> outer = clock.waitingFor();
        clock.waitingFor(waitingFor);
        return () -> {
            clock.waitingFor(outer);
            clock.enter(before);
        };
    }
}
