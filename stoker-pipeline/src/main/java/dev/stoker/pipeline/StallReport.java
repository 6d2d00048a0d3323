package dev.stoker.pipeline;

import java.util.List;

/**
 * What the stall watchdog saw when nothing moved for the quiet period: per stage, the items queued and
 * in flight, and the stack of every worker inside a task (the stuck call is usually on top).
 *
 * @param quietMillis time without progress
 * @param stages      stages that hold items
 * @param text        the report as printed
 */
public record StallReport(long quietMillis, List<StageHold> stages, String text) {

    /** One stage's share of the stall. */
    public record StageHold(String stage, int queued, int inFlight, List<String> busyWorkerStacks) { }
}
