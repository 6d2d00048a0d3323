package dev.stoker.pipeline.subprocess.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * How a ring side waits for the other process (Agrona's BackoffIdleStrategy): spin a little, yield a
 * little, then park for doubling periods up to a cap. {@link #reset()} after progress.
 */
final class Backoff {
    private static final int SPINS = 200;
    private static final int YIELDS = 20;
    private static final long MIN_PARK_NANOS = 1_000;

    private final long maxParkNanos;
    private int idles;
    private long parkNanos = MIN_PARK_NANOS;

    Backoff(long maxParkNanos) {
        this.maxParkNanos = maxParkNanos;
    }

    void idle() throws InterruptedException {
        if (idles < SPINS) {
            Thread.onSpinWait();
        } else if (idles < SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos * 2, maxParkNanos);
        }
        idles++;
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    void reset() {
        idles = 0;
        parkNanos = MIN_PARK_NANOS;
    }
}
