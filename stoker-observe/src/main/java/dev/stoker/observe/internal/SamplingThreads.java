package dev.stoker.observe.internal;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** Ends the observers' sampling threads, which park between rounds and exit once they see their stop flag. */
final class SamplingThreads {
    private SamplingThreads() { }

    /**
     * Wakes {@code thread} from its park, so that it sees the stop flag the caller has set, and waits up to
     * {@code patience} for it to end; an interrupt of the caller cuts the wait short and stays set.
     */
    static void wakeAndJoin(Thread thread, Duration patience) {
        LockSupport.unpark(thread);
        try {
            thread.join(patience.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
