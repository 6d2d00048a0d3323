package dev.stoker.pipeline;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds: synchronisation on observable state, never on elapsed time. */
final class Await {
    private Await() { }

    static void until(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, condition, Duration.ofSeconds(20));
    }
}
