package dev.stoker.gpu;

import java.lang.foreign.MemorySegment;

/** An ordered queue of device work ({@code CUstream}): copies run in the order given, events mark points in it. */
public interface GpuStream extends AutoCloseable {

    /** The driver's handle ({@code CUstream}), for a framework to wait on or wrap; 0 for fakes. */
    long handle();

    /**
     * Queues a copy of {@code host} to device memory at {@code devicePointer} and returns at once
     * ({@code cuMemcpyHtoDAsync_v2}): {@code host} must stay untouched until an event recorded after
     * the copy completes. Asynchronous only when {@code host} is pinned.
     */
    void copyToDeviceAsync(MemorySegment host, long devicePointer);

    /**
     * Queues a copy of {@code bytes} bytes between device buffers ({@code cuMemcpyDtoDAsync_v2}) and returns
     * at once; both must stay allocated until an event recorded after it completes.
     */
    void copyOnDeviceAsync(long sourcePointer, long destinationPointer, long bytes);

    /** A new event recorded at this point of the stream; the caller closes it. */
    GpuEvent record();

    /** Blocks until all work queued so far has run ({@code cuStreamSynchronize}). */
    void synchronize();

    @Override
    void close();
}
