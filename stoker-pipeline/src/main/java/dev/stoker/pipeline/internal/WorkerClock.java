package dev.stoker.pipeline.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * Splits one worker thread's time into busy, idle and back-pressured (Flink's task time split) by
 * sampling: the worker only publishes its current state (an opaque store, no clock read, no fence),
 * and the housekeeper counts which state it finds every tick. Reading the clock around every take and
 * put instead cost more than the queues themselves for short tasks (a {@code nanoTime} is 60–90 ns on
 * virtual machines). With a 10 ms tick, a one-second window holds 100 samples per worker.
 */
final class WorkerClock {
    static final int IDLE = 0;
    static final int BUSY = 1;
    static final int BACK_PRESSURED = 2;

    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);
    /** The clock of the worker running on this thread, for the stage code it calls ({@link StageWaits}). */
    private static final ThreadLocal<WorkerClock> CURRENT = new ThreadLocal<>();

    @SuppressWarnings("unused") // accessed through STATE
    private int state = IDLE;
    private final long[] samples = new long[3];
    /** What the worker waits for downstream, for a stall report ({@link StageWaits}); null when it says nothing. */
    private volatile Supplier<String> waitingFor;

    /** This thread's worker's clock; null on a thread that is no stage worker. */
    static WorkerClock current() { return CURRENT.get(); }

    /** The worker runs on this thread from now on ({@code null}: no more). */
    void bindToThisThread(boolean bound) {
        if (bound) {
            CURRENT.set(this);
        } else {
            CURRENT.remove();
        }
    }

    /** Called by the worker on every state change. */
    void enter(int next) {
        STATE.setOpaque(this, next);
    }

    int state() {
        return (int) STATE.getOpaque(this);
    }

    Supplier<String> waitingFor() { return waitingFor; }

    void waitingFor(Supplier<String> what) { waitingFor = what; }

    /** Called by the housekeeper every tick. */
    synchronized void sample() {
        samples[state()]++;
    }

    /** Samples taken in each state so far (idle, busy, back-pressured). */
    synchronized long[] read() { return samples.clone(); }
}
