package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchMemory;
import dev.stoker.pipeline.MemoryAccount;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Batch memory from a {@link HostAllocator}: give it to a {@link dev.stoker.loader.batch.BatchPool} (or to a host
 * loader, {@link dev.stoker.loader.Opening#batchesIn}) and the collate stage writes every batch straight into pinned
 * memory. The pool keeps the byte budget and reuses the
 * buffers; this allocates them (page-aligned) and frees them all when the pool closes.
 */
final class PinnedMemory implements BatchMemory {
    private final HostAllocator allocator;
    private final List<MemorySegment> buffers = new ArrayList<>();
    private long bytesAllocated;
    private boolean freed;

    public PinnedMemory(HostAllocator allocator) {
        this.allocator = allocator;
    }

    @Override
    public synchronized MemorySegment allocate(long bytes, long alignmentBytes) {
        if (freed) {
            throw new IllegalStateException("PinnedMemory is freed");
        }
        MemorySegment buffer = allocator.allocate(bytes);
        if (buffer.address() % alignmentBytes != 0) {
            allocator.free(buffer);
            throw new IllegalStateException("host buffer at 0x" + Long.toHexString(buffer.address())
                    + " is not aligned to " + alignmentBytes + " bytes");
        }
        buffers.add(buffer);
        bytesAllocated += bytes;
        MemoryAccount.allocated(kind(), bytes);
        return buffer;
    }

    @Override
    public synchronized void freeAll() {
        if (freed) {
            return;
        }
        freed = true;
        try {
            Closeables.releaseAll(buffers, allocator::free);
        } finally {
            buffers.clear();
            MemoryAccount.freed(kind(), bytesAllocated);
        }
    }

    /** Page-locked memory is the account's own kind; plain off-heap memory is pooled buffers like the CPU loader's. */
    private MemoryAccount.Kind kind() {
        return allocator.pinned() ? MemoryAccount.Kind.PINNED_HOST : MemoryAccount.Kind.POOLED_BUFFERS;
    }

    /** Bytes allocated so far (the pool's budget caps it). */
    public synchronized long bytesAllocated() { return bytesAllocated; }

    /** Buffers allocated and not yet freed. */
    public synchronized int buffers() { return buffers.size(); }

    public boolean pinned() { return allocator.pinned(); }
}
