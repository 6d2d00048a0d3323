package dev.stoker.gpu;

import java.lang.foreign.MemorySegment;

/**
 * Host memory for batch buffers: page-locked ("pinned", {@code cuMemHostAlloc}) on a CUDA device, so
 * copies to the device run asynchronously at full speed; plain off-heap memory
 * ({@link OffHeapHostAllocator}) in tests and without a device.
 */
public interface HostAllocator {
    /** A new zero-offset buffer of {@code bytes} bytes, page-aligned, valid until {@link #free}. */
    MemorySegment allocate(long bytes);

    /** Frees a buffer this allocator returned. */
    void free(MemorySegment buffer);

    /** Whether the memory is page-locked (DMA-able without a staging copy). */
    boolean pinned();
}
