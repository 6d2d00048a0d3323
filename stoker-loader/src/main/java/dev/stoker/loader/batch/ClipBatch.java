package dev.stoker.loader.batch;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A batch of clips in one pooled off-heap buffer, ready to hand to a training framework.
 *
 * <p>The clips filled so far must form a prefix {@code 0..n-1}; {@link #data()} and {@link #shape()}
 * cover exactly those {@code n} clips, so a short last batch of an epoch needs no special casing.
 * Distinct slots may be filled from different threads (see {@link BatchCollator}); hand the batch to
 * its consumer through a thread-safe queue.
 *
 * <p>{@link #close()} returns the buffer to its {@link BatchPool}; afterwards every accessor but {@link #layout()}
 * and {@link #batchShape()} (the pool's geometry, which stays true) throws {@link IllegalStateException}
 * ({@code ClipBatch is closed ...}), and so does every segment obtained from {@link #data()} when used.
 * {@link #isClosed()}, {@link #toString()} and a second {@code close()} answer as ever. A batch that becomes
 * unreachable without {@code close()} is reported as a leak and its buffer reclaimed.
 *
 * <p>A batch still held when its pool closes (its loader's {@code close()} frees the pool) reads as closed from
 * then on, exactly as if closed: its memory is freed, and freed memory is never read. {@link #isClosed()} is true
 * and the accessors throw {@code IllegalStateException} saying that the pool closed; read (or copy) what a batch
 * holds before closing its loader. Closing it afterwards is harmless.
 */
public final class ClipBatch implements LoadedBatch {

    private final BatchShape shape;
    private final MemorySegment buffer;
    private final BatchLease lease;
    private final Cleaner.Cleanable cleanable;
    private final ClipInfo[] clips;
    private final AtomicBoolean closed = new AtomicBoolean();

    ClipBatch(BatchShape shape, BatchLease lease, Cleaner cleaner) {
        this.shape = shape;
        this.lease = lease;
        this.buffer = lease.view();
        this.clips = new ClipInfo[shape.clipsPerBatch()];
        this.cleanable = cleaner == null ? null : cleaner.register(this, lease);
    }

    /** The pixels of the filled clips, {@code shape()} in row-major order, uint8. */
    public MemorySegment data() {
        return buffer.asSlice(0, clipCount() * shape.clipBytes());
    }

    /** Tensor shape of {@link #data()}: {@code [n, T, H, W, C]} or {@code [n, C, T, H, W]}. */
    public long[] shape() {
        return shape.shape(clipCount());
    }

    public BatchLayout layout() { return shape.layout(); }

    /** Geometry of the full buffer (capacity, not fill). */
    public BatchShape batchShape() { return shape; }

    /** Label of each filled clip. */
    public int[] labels() {
        int n = clipCount();
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            labels[i] = clips[i].label();
        }
        return labels;
    }

    /** Where each filled clip came from. */
    public List<ClipInfo> clips() {
        return List.of(Arrays.copyOf(clips, clipCount()));
    }

    /** Number of filled clips: the length of the filled prefix. */
    public int clipCount() {
        checkOpen();
        int n = 0;
        while (n < clips.length && clips[n] != null) {
            n++;
        }
        for (int i = n + 1; i < clips.length; i++) {
            if (clips[i] != null) {
                throw new IllegalStateException("slot " + i + " is filled but slot " + n
                        + " is not (expected: slots filled as a prefix 0..n-1)");
            }
        }
        return n;
    }

    /** True once {@link #close()}d, or once its pool closed and freed its buffer (its loader closed). */
    public boolean isClosed() { return closed.get() || lease.viewsInvalidated(); }

    /** Returns the buffer to the pool. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lease.markClosedByOwner();
        if (cleanable != null) {
            cleanable.clean();
        } else {
            lease.run();
        }
    }

    /** The bytes of slot {@code slot} in the full buffer. */
    MemorySegment slotSegment(int slot) {
        checkOpen();
        checkSlot(slot);
        return buffer.asSlice(slot * shape.clipBytes(), shape.clipBytes());
    }

    /** The bytes of slots {@code 0..n-1} in the full buffer. */
    MemorySegment firstSlots(int n) {
        checkOpen();
        if (n < 0 || n > clips.length) {
            throw new IndexOutOfBoundsException("slots: " + n + " (expected: 0.." + clips.length + ")");
        }
        return buffer.asSlice(0, n * shape.clipBytes());
    }

    void setClip(int slot, ClipInfo info) {
        checkOpen();
        checkSlot(slot);
        clips[slot] = info;
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= clips.length) {
            throw new IndexOutOfBoundsException("slot: " + slot + " (expected: 0.." + (clips.length - 1) + ")");
        }
    }

    private void checkOpen() {
        // One read per call (this runs per clip written): closing the batch invalidates its views too, so only a
        // batch found invalid asks why. Of a batch nobody closed, only the pool's close did: its memory is freed.
        if (lease.viewsInvalidated()) {
            throw new IllegalStateException(closed.get() ? "ClipBatch is closed (its buffer is back in the pool)"
                    : "ClipBatch is closed: its pool closed (its loader did) and freed its buffer (expected: a batch"
                            + " read before its loader closes)");
        }
    }

    BatchLease lease() { return lease; }

    @Override
    public String toString() {
        return isClosed() ? "ClipBatch[closed]"
                : "ClipBatch[" + shape.layout() + " " + Arrays.toString(shape()) + "]";
    }
}
