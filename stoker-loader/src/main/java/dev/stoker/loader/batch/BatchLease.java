package dev.stoker.loader.batch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One hand-out of a pooled buffer, and the action that ends it. It runs exactly once: from
 * {@link ClipBatch#close()}, or from the Cleaner when a batch became unreachable unclosed. It holds
 * no reference to its batch, or the batch could never become unreachable.
 */
final class BatchLease implements Runnable {

    private final BatchPool pool;
    private final MemorySegment buffer;
    /** Scopes the views handed to users, so that a view used after close() fails instead of reading reused memory. */
    private final Arena viewArena;
    private final Throwable acquiredAt;
    private final String description;
    private final AtomicBoolean viewsInvalidated = new AtomicBoolean();
    private volatile boolean closedByOwner;
    /** Set when the batch went to its consumer ({@link BatchPool#handOut}); from then it is the consumer's to close. */
    private volatile boolean handedOut;
    /**
     * Where it went to the consumer, when leak detection keeps stacks for it; null otherwise. Written before
     * {@link #handedOut} and read after it: that volatile pair publishes it, with one volatile write a batch.
     */
    private Throwable handedOutAt;

    BatchLease(BatchPool pool, MemorySegment buffer, Throwable acquiredAt, String description) {
        this.pool = pool;
        this.buffer = buffer;
        this.viewArena = Arena.ofShared();
        this.acquiredAt = acquiredAt;
        this.description = description;
    }

    /** The pooled buffer, seen through this lease's scope. */
    @SuppressWarnings("restricted") // same address and size as a live pool buffer; only the scope changes
    MemorySegment view() {
        return buffer.reinterpret(viewArena, null);
    }

    boolean isOf(BatchPool owner) { return pool == owner; }

    boolean tracesAcquisition() { return acquiredAt != null; }

    void handOut(Throwable at) {
        handedOutAt = at;
        handedOut = true;
    }

    boolean handedOut() { return handedOut; }

    /** Whether the views fail: the batch was closed, reclaimed, or its pool closed and freed the memory. */
    boolean viewsInvalidated() { return viewsInvalidated.get(); }

    /** Makes every view fail from now on. Idempotent; the pool calls it before freeing the memory. */
    void invalidateViews() {
        if (viewsInvalidated.compareAndSet(false, true)) {
            viewArena.close();
        }
    }

    void markClosedByOwner() {
        closedByOwner = true;
    }

    @Override
    public void run() {
        if (!closedByOwner) {
            pool.reportLeak(description, acquiredAt, handedOut ? handedOutAt : null);
        }
        invalidateViews();
        pool.release(this, buffer);
    }
}
