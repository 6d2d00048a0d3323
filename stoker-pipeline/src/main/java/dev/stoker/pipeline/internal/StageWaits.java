package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.StageStats;

/** Where {@link StageStats#waitingDownstream()} meets the worker's clock of the thread it is called on. */
public final class StageWaits {
    private static final StageStats.DownstreamWait NONE = () -> { };

    private StageWaits() {
    }

    /** This thread's worker (if it is one) counted as back-pressured until the wait is closed; elsewhere, nothing. */
    public static StageStats.DownstreamWait downstream() {
        WorkerClock clock = WorkerClock.current();
        if (clock == null) {
            return NONE;
        }
        int before = clock.state();
        clock.enter(WorkerClock.BACK_PRESSURED);
        return () -> clock.enter(before);
    }
}
