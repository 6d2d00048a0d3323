package dev.stoker.pipeline;

import java.util.List;

/**
 * What the stall watchdog saw when nothing moved for the quiet period: per stage, the items queued and
 * in flight, what a worker waiting downstream waits for (when its function says, such as a pool whose buffers the
 * consumer holds), and the stack of every worker inside a task (the stuck call is usually on top).
 *
 * @param quietMillis time without progress
 * @param stages      stages that hold items
 * @param text        the report as printed
 */
public record StallReport(long quietMillis, List<StageHold> stages, String text) {

    /**
     * One stage's share of the stall.
     *
     * @param stage            the stage's name
     * @param queued           items in its input queue
     * @param inFlight         tasks running
     * @param busyWorkerStacks the stack of each worker inside a task, under its thread and item
     * @param downstreamWaits  what its waiting workers wait for, as their functions said it
     *                         ({@link StageStats#waitingDownstream(java.util.function.Supplier)}): the cause, when known
     */
    public record StageHold(String stage, int queued, int inFlight, List<String> busyWorkerStacks,
                            List<String> downstreamWaits) { }
}
