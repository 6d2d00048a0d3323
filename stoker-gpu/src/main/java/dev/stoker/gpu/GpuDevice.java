package dev.stoker.gpu;

/**
 * What the transfer stage needs from a device: pinned host memory, device memory, streams. The CUDA
 * implementation is {@link CudaDevice}; tests use a fake backed by off-heap memory, whose streams run
 * their work when the test says so.
 */
public interface GpuDevice extends AutoCloseable {

    /** {@code cuda:0}, say. */
    String id();

    /** The device's name, e.g. {@code NVIDIA H100 80GB HBM3}. */
    String name();

    /** Host memory for batch buffers, pinned where the device allows. */
    HostAllocator hostAllocator();

    /** {@code bytes} bytes of device memory. */
    DeviceMemory allocate(long bytes);

    /** A new stream that does not synchronise with the default stream. */
    GpuStream createStream();

    /** Releases the device (its context). Memory and streams made from it must be closed first. */
    @Override
    void close();
}
