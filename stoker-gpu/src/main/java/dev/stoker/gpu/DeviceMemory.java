package dev.stoker.gpu;

/** A block of device memory ({@code cuMemAlloc_v2}): a device pointer and its size, freed by {@link #close()}. */
public interface DeviceMemory extends AutoCloseable {
    /** The device address ({@code CUdeviceptr}). */
    long pointer();

    long byteSize();

    /** Frees it. Idempotent. */
    @Override
    void close();
}
