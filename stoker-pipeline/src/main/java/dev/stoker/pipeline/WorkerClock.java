package dev.stoker.pipeline;

/**
 * Splits one worker thread's time into busy, idle and back-pressured (Flink's task time split). The
 * worker switches state at most four times per item, each a {@code nanoTime} and plain field writes;
 * readers add the time spent in the current state so far, so a task stuck for a minute already shows
 * as a minute of busy time.
 */
final class WorkerClock {
    static final int IDLE = 0;
    static final int BUSY = 1;
    static final int BACK_PRESSURED = 2;

    private final long[] accumulated = new long[3];
    private volatile int state = IDLE;
    private volatile long since;

    WorkerClock() {
        since = System.nanoTime();
    }

    void enter(int next) {
        long now = System.nanoTime();
        int current = state;
        if (current == next) {
            return;
        }
        synchronized (accumulated) {
            accumulated[current] += now - since;
            since = now;
            state = next;
        }
    }

    int state() {
        return state;
    }

    /** Busy, idle and back-pressured nanos so far, current state included. */
    long[] read() {
        long now = System.nanoTime();
        synchronized (accumulated) {
            long[] copy = accumulated.clone();
            copy[state] += now - since;
            return copy;
        }
    }
}
