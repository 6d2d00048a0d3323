package dev.stoker.pipeline;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * "It blocks", checked by thread state rather than by a sleep: a thread is seen blocked in a method when it waits
 * (parked, in {@code Object.wait}, or on a monitor) with that method on its stack. Tests poll for it, with a hang
 * guard far above any real time; the state is reached or the thread ends, so the answer does not depend on how
 * loaded the machine is.
 */
public final class ThreadStates {
    /** Far above the time any thread here takes to reach a wait, on however loaded a machine. */
    public static final Duration HANG_GUARD = Duration.ofSeconds(60);

    private ThreadStates() { }

    /** Whether {@code thread} waits now, in {@code method} ({@code SimpleClassName.method}) or below it. */
    public static boolean blockedIn(Thread thread, String method) {
        Thread.State state = thread.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING && state != Thread.State.BLOCKED) {
            return false;
        }
        return Arrays.stream(thread.getStackTrace()).anyMatch(frame -> method.equals(simpleName(frame.getClassName())
                + "." + frame.getMethodName()));
    }

    /**
     * Waits until {@code thread} is blocked in {@code method} (true) or has ended (false); an AssertionError after
     * {@link #HANG_GUARD}.
     */
    public static boolean awaitBlockedIn(Thread thread, String method) {
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (true) {
            if (blockedIn(thread, method)) {
                return true;
            }
            if (thread.getState() == Thread.State.TERMINATED) {
                return false;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("hang guard: " + thread.getName() + " neither blocked in " + method
                        + " nor ended within " + HANG_GUARD + " (state " + thread.getState() + ")");
            }
            LockSupport.parkNanos(1_000_000);   // a poll, not a wait for time to pass
        }
    }

    private static String simpleName(String className) {
        String name = className.substring(className.lastIndexOf('.') + 1);
        return name.substring(name.lastIndexOf('$') + 1);
    }
}
