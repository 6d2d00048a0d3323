package dev.stoker.loader.batch;

import dev.stoker.pipeline.MemoryAccount;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a {@link BatchPool}'s buffers come from: plain off-heap memory by default, page-locked
 * ("pinned") host memory when batches go on to a GPU, so that the collate stage writes straight into
 * memory the device can copy from asynchronously. The pool keeps the budget and the reuse; this only
 * allocates, and frees everything at once when the pool closes.
 */
public interface BatchMemory {

    /** A new buffer of {@code bytes} bytes, aligned to at least {@code alignmentBytes}, valid until {@link #freeAll()}. */
    MemorySegment allocate(long bytes, long alignmentBytes);

    /** Frees every buffer this memory handed out. Called once, by the pool's close(). */
    void freeAll();

    /** Plain off-heap memory from a shared arena (the default), reported to the {@link MemoryAccount}. */
    static BatchMemory offHeap() {
        Arena arena = Arena.ofShared();
        AtomicLong allocatedBytes = new AtomicLong();
        return new BatchMemory() {
            @Override
            public MemorySegment allocate(long bytes, long alignmentBytes) {
                MemorySegment buffer = arena.allocate(bytes, alignmentBytes);
                allocatedBytes.addAndGet(bytes);
                MemoryAccount.allocated(MemoryAccount.Kind.POOLED_BUFFERS, bytes);
                return buffer;
            }

            @Override
            public void freeAll() {
                arena.close();
                MemoryAccount.freed(MemoryAccount.Kind.POOLED_BUFFERS, allocatedBytes.getAndSet(0));
            }

            @Override
            public String toString() {
                return "BatchMemory.offHeap";
            }
        };
    }
}
