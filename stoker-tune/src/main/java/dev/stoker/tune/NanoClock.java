package dev.stoker.tune;

import java.util.concurrent.locks.LockSupport;

/**
 * The online tuner's time. The system's in a running pipeline; a fake one in tests, whose waits only move
 * its hands, so that the tuner's decisions over many windows are checked in milliseconds and the same every run.
 */
interface NanoClock {
    /** {@link System#nanoTime()} and {@link LockSupport#parkNanos(long)}. */
    NanoClock SYSTEM = new NanoClock() {
        @Override
        public long nanoTime() { return System.nanoTime(); }

        @Override
        public void parkNanos(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };

    long nanoTime();

    /** Waits about {@code nanos} (less when woken early: callers look at the time again). */
    void parkNanos(long nanos);
}
