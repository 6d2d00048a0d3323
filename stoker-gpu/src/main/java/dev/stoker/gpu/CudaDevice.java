package dev.stoker.gpu;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One CUDA device through the driver API: its primary context (made current on each calling thread as
 * needed), pinned host memory, device memory, streams and events. Thread-safe.
 */
public final class CudaDevice implements GpuDevice {
    private final CudaDriver driver;
    private final int ordinal;
    private final int device;
    private final long context;
    private final String name;
    private final HostAllocator pinned = new PinnedAllocator();
    private final AtomicBoolean closed = new AtomicBoolean();

    private CudaDevice(CudaDriver driver, int ordinal, int device, long context, String name) {
        this.driver = driver;
        this.ordinal = ordinal;
        this.device = device;
        this.context = context;
        this.name = name;
    }

    /**
     * CU_CTX_SCHED_BLOCKING_SYNC: the flags FFmpeg's CUDA device (NVDEC's, which shares this primary context)
     * insists on; it refuses a primary context already active with others ("Primary context already active with
     * incompatible flags", ENOTSUP), which is how NVDEC first failed on an H100. Waits then block the thread
     * instead of spinning on a core the decoders need.
     */
    static final int PRIMARY_CONTEXT_FLAGS = 0x04;

    static CudaDevice open(CudaDriver driver, int ordinal) {
        int device = driver.device(ordinal);
        String name = driver.deviceName(device);
        driver.primaryCtxSetFlags(device, PRIMARY_CONTEXT_FLAGS);
        long context = driver.primaryCtxRetain(device);
        driver.ctxSetCurrent(context);
        return new CudaDevice(driver, ordinal, device, context, name);
    }

    /** Makes this device's context current on the calling thread (cheap; the driver keeps it per thread). */
    void bind() {
        if (closed.get()) {
            throw new IllegalStateException("CudaDevice " + id() + " is closed");
        }
        driver.ctxSetCurrent(context);
    }

    CudaDriver driver() {
        return driver;
    }

    @Override
    public String id() {
        return "cuda:" + ordinal;
    }

    @Override
    public String name() {
        return name;
    }

    public long totalMemoryBytes() {
        return driver.deviceTotalMemBytes(device);
    }

    /** The driver's version as {@code 1000 * major + 10 * minor} ({@code cuDriverGetVersion}). */
    public int driverVersion() {
        return driver.driverVersion();
    }

    @Override
    public HostAllocator hostAllocator() {
        return pinned;
    }

    @Override
    public DeviceMemory allocate(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes: " + bytes + " (expected: 1+)");
        }
        bind();
        long pointer = driver.memAlloc(bytes);
        return new Memory(pointer, bytes);
    }

    @Override
    public GpuStream createStream() {
        bind();
        return new Stream(driver.streamCreate(CudaDriver.CU_STREAM_NON_BLOCKING));
    }

    /** Synchronous copy, device to host ({@code cuMemcpyDtoH_v2}): for checks and tests on a GPU. */
    public void copyToHost(long devicePointer, MemorySegment host) {
        bind();
        driver.memcpyDtoH(host.address(), devicePointer, host.byteSize());
    }

    /** Synchronous copy, host to device ({@code cuMemcpyHtoD_v2}): the baseline the pinned async path is measured against. */
    public void copyToDevice(MemorySegment host, long devicePointer) {
        bind();
        driver.memcpyHtoD(devicePointer, host.address(), host.byteSize());
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            driver.primaryCtxRelease(device);
        }
    }

    @Override
    public String toString() {
        return id() + " (" + name + ")";
    }

    private final class PinnedAllocator implements HostAllocator {
        @Override
        @SuppressWarnings("restricted") // the driver's allocation of exactly these bytes, freed only by free()
        public MemorySegment allocate(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("bytes: " + bytes + " (expected: 1+)");
            }
            bind();
            long address = driver.memHostAlloc(bytes, CudaDriver.CU_MEMHOSTALLOC_PORTABLE);
            return MemorySegment.ofAddress(address).reinterpret(bytes);
        }

        @Override
        public void free(MemorySegment buffer) {
            bind();
            driver.memFreeHost(buffer.address());
        }

        @Override
        public boolean pinned() {
            return true;
        }
    }

    private final class Memory implements DeviceMemory {
        private final long pointer;
        private final long bytes;
        private final AtomicBoolean freed = new AtomicBoolean();

        Memory(long pointer, long bytes) {
            this.pointer = pointer;
            this.bytes = bytes;
        }

        @Override
        public long pointer() {
            return pointer;
        }

        @Override
        public long byteSize() {
            return bytes;
        }

        @Override
        public void close() {
            if (freed.compareAndSet(false, true)) {
                bind();
                driver.memFree(pointer);
            }
        }
    }

    private final class Stream implements GpuStream {
        private final long stream;
        private final AtomicBoolean destroyed = new AtomicBoolean();

        Stream(long stream) {
            this.stream = stream;
        }

        @Override
        public long handle() {
            return stream;
        }

        @Override
        public void copyToDeviceAsync(MemorySegment host, long devicePointer) {
            bind();
            driver.memcpyHtoDAsync(devicePointer, host.address(), host.byteSize(), stream);
        }

        @Override
        public void copyOnDeviceAsync(long sourcePointer, long destinationPointer, long bytes) {
            bind();
            driver.memcpyDtoDAsync(destinationPointer, sourcePointer, bytes, stream);
        }

        @Override
        public GpuEvent record() {
            bind();
            long event = driver.eventCreate(CudaDriver.CU_EVENT_DEFAULT);
            try {
                driver.eventRecord(event, stream);
            } catch (RuntimeException e) {
                driver.eventDestroy(event);
                throw e;
            }
            return new Event(event);
        }

        @Override
        public void synchronize() {
            bind();
            driver.streamSynchronize(stream);
        }

        @Override
        public void close() {
            if (destroyed.compareAndSet(false, true)) {
                bind();
                driver.streamDestroy(stream);
            }
        }
    }

    private final class Event implements GpuEvent {
        private final long event;
        private final AtomicBoolean destroyed = new AtomicBoolean();

        Event(long event) {
            this.event = event;
        }

        @Override
        public boolean isComplete() {
            bind();
            return driver.eventQuery(event);
        }

        @Override
        public void await() {
            bind();
            driver.eventSynchronize(event);
        }

        @Override
        public double elapsedMillisSince(GpuEvent start) {
            if (!(start instanceof Event s)) {
                return Double.NaN;
            }
            bind();
            return driver.eventElapsedMillis(s.event, event);
        }

        @Override
        public void close() {
            if (destroyed.compareAndSet(false, true)) {
                bind();
                driver.eventDestroy(event);
            }
        }
    }
}
