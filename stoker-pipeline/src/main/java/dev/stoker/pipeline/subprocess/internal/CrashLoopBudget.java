package dev.stoker.pipeline.subprocess.internal;

/**
 * Bounds crash loops: restarts in a row with no input done between them. A child killed from time to time (the OOM
 * killer under pressure, an operator) over a long run makes progress between, and so never exhausts it.
 */
final class CrashLoopBudget {
    private final int budget;
    private int restarts;
    private long doneAtLastRestart;

    CrashLoopBudget(int budget) {
        this.budget = budget;
    }

    /** Counts a restart, {@code doneCount} items done so far; returns the restarts in a row, this one included. */
    int restart(long doneCount) {
        if (doneCount > doneAtLastRestart) {
            restarts = 0;
        }
        doneAtLastRestart = doneCount;
        return ++restarts;
    }

    boolean exhausted() {
        return restarts > budget;
    }

    int budget() { return budget; }
}
