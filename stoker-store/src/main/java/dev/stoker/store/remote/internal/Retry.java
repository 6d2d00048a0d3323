package dev.stoker.store.remote.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Retries a request that failed with a {@link Transient} error (a 503/SlowDown, a reset connection, a truncated
 * body), sleeping a random time up to an exponentially growing cap between attempts ("full jitter"), so clients
 * that were throttled together do not come back together. Any other error is final at once.
 */
public final class Retry {
    /** An error worth trying again: the server or the network said "not now", not "no". */
    public static final class Transient extends IOException {
        public Transient(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A request: one attempt. */
    @FunctionalInterface
    public interface Attempt<T> {
        T call() throws IOException;
    }

    private final int attempts;
    private final long baseNanos;
    private final long maxNanos;
    private final AtomicLong retries = new AtomicLong();

    public Retry(int attempts, Duration base, Duration max) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts: " + attempts + " (expected: 1+)");
        }
        this.attempts = attempts;
        this.baseNanos = base.toNanos();
        this.maxNanos = max.toNanos();
    }

    /** 8 attempts, 50 ms growing to 5 s: rides out a throttling burst of ~20 s. */
    public static Retry standard() {
        return new Retry(8, Duration.ofMillis(50), Duration.ofSeconds(5));
    }

    /** Retries taken so far, over every call. */
    public long retries() { return retries.get(); }

    public <T> T call(String what, Attempt<T> attempt) throws IOException {
        for (int n = 1; ; n++) {
            try {
                return attempt.call();
            } catch (Transient e) {
                if (Thread.currentThread().isInterrupted()) {
                    // A reset caused by an interrupt (a closing reader) is no network fault: stop, do not retry.
                    throw new InterruptedIOException(what + ": interrupted");
                }
                if (n >= attempts) {
                    throw new IOException(what + ": " + e.getMessage() + " (gave up after " + n + " attempts)", e);
                }
                retries.incrementAndGet();
                long cap = Math.min(maxNanos, baseNanos << Math.min(n - 1, 30));
                try {
                    Thread.sleep(Duration.ofNanos(ThreadLocalRandom.current().nextLong(cap + 1)));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException(what + ": interrupted while backing off");
                }
            }
        }
    }
}
