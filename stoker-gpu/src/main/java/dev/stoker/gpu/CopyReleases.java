package dev.stoker.gpu;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Host buffers under asynchronous copies: each is released (closed, back to its pool) only once the
 * event recorded after its copy has completed, never before, since the device may still be reading it.
 * Pending releases are kept in copy order; events on one stream complete in that order. Not
 * thread-safe: the transfer thread owns it.
 */
final class CopyReleases {

    /** One copy: its events (owned here) and what to release when it is done. */
    record Pending(long sequence, GpuEvent started, GpuEvent copied, AutoCloseable resource, long enqueuedNanos,
                   long bytes) { }

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Consumer<Pending> onReleased;
    private long released;

    /** {@code onReleased} hears of each copy after its resource was released (for traces and counters). */
    CopyReleases(Consumer<Pending> onReleased) {
        this.onReleased = onReleased;
    }

    void releaseAfter(Pending copy) {
        pending.addLast(copy);
    }

    /** Releases every copy whose event has completed, oldest first, stopping at the first still running. */
    int releaseCompleted() {
        int n = 0;
        while (!pending.isEmpty() && pending.peekFirst().copied().isComplete()) {
            release(pending.pollFirst());
            n++;
        }
        return n;
    }

    /** Waits for the oldest copy and releases it; false when none is pending. */
    boolean awaitOldest() {
        Pending oldest = pending.pollFirst();
        if (oldest == null) {
            return false;
        }
        try {
            oldest.copied().await();
        } catch (RuntimeException e) {
            pending.addFirst(oldest);
            throw e;
        }
        release(oldest);
        return true;
    }

    /** Waits for every pending copy and releases it. */
    void awaitAll() {
        while (awaitOldest()) {
            // next
        }
    }

    int pending() { return pending.size(); }

    /** Copies whose buffers went back. */
    long released() { return released; }

    private void release(Pending copy) {
        try {
            copy.resource().close();
        } catch (Exception e) {
            throw new IllegalStateException("releasing the host buffer of copy " + copy.sequence() + " failed", e);
        } finally {
            released++;
            try {
                onReleased.accept(copy);
            } finally {
                copy.started().close();
                copy.copied().close();
            }
        }
    }
}
