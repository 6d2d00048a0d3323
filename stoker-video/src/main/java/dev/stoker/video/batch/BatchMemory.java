package dev.stoker.video.batch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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

    /** Plain off-heap memory from a shared arena (the default). */
    static BatchMemory offHeap() {
        Arena arena = Arena.ofShared();
        return new BatchMemory() {
            @Override
            public MemorySegment allocate(long bytes, long alignmentBytes) {
                return arena.allocate(bytes, alignmentBytes);
            }

            @Override
            public void freeAll() {
                arena.close();
            }

            @Override
            public String toString() {
                return "BatchMemory.offHeap";
            }
        };
    }
}
