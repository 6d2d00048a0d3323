package dev.stoker.pipeline;

import java.util.concurrent.CountDownLatch;

/** Stage bodies that stall on purpose, for the tests of cancellation and of the stall watchdog. */
final class Stalls {
    private Stalls() { }

    /** Blocks the calling worker until it is interrupted; returns with its interrupt flag set again. */
    static void untilInterrupted() {
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
