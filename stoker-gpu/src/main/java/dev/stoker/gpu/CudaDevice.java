package dev.stoker.gpu;

import dev.stoker.gpu.CudaDriver.HandleCall;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One CUDA device through the driver API: its primary context (made current on each calling thread as
 * needed), pinned host memory, device memory, streams and events. Thread-safe.
 */
public final class CudaDevice implements GpuDevice {
    /**
     * CU_CTX_SCHED_BLOCKING_SYNC: the flags FFmpeg's CUDA device (NVDEC's, which shares this primary context)
     * insists on; it refuses a primary context already active with others ("Primary context already active with
     * incompatible flags", ENOTSUP), which is how NVDEC first failed on an H100. Waits then block the thread
     * instead of spinning on a core the decoders need.
     */
    static final int PRIMARY_CONTEXT_FLAGS = 0x04;
    /** {@link #context}'s value once closed: the driver never hands out a null CUcontext. */
    private static final long RELEASED = 0;

    private final CudaDriver driver;
    private final int ordinal;
    private final int device;
    private final String name;
    /** The retained primary context; {@link #RELEASED} after {@link #close()}. */
    private volatile long context;

    /** Retains device {@code ordinal}'s primary context, with {@link #PRIMARY_CONTEXT_FLAGS}, and makes it current. */
    private CudaDevice(CudaDriver driver, int ordinal) {
        this.driver = driver;
        this.ordinal = ordinal;
        this.device = driver.device(ordinal);
        this.name = driver.deviceName(device);
        driver.primaryCtxSetFlags(device, PRIMARY_CONTEXT_FLAGS);
        this.context = driver.primaryCtxRetain(device);
        driver.call(HandleCall.CTX_SET_CURRENT, context);
    }

    static CudaDevice open(CudaDriver driver, int ordinal) {
        return new CudaDevice(driver, ordinal);
    }

    /** Makes this device's context current on the calling thread (cheap; the driver keeps it per thread). */
    void bind() {
        long current = context;
        if (current == RELEASED) {
            throw new IllegalStateException("CudaDevice " + id() + " is closed");
        }
        driver.call(HandleCall.CTX_SET_CURRENT, current);
    }

    CudaDriver driver() { return driver; }

    @Override
    public String id() {
        return "cuda:" + ordinal;
    }

    @Override
    public String name() { return name; }

    public long totalMemoryBytes() {
        return driver.deviceTotalMemBytes(device);
    }

    /** The driver's version as {@code 1000 * major + 10 * minor} ({@code cuDriverGetVersion}). */
    public int driverVersion() { return driver.driverVersion(); }

    /** Pinned host memory of this device's context ({@code cuMemHostAlloc}); a view, made on each call. */
    @Override
    public HostAllocator hostAllocator() {
        return new PinnedAllocator();
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
    public synchronized void close() {
        if (context != RELEASED) {
            context = RELEASED;
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
            driver.call(HandleCall.MEM_FREE_HOST, buffer.address());
        }

        @Override
        public boolean pinned() { return true; }
    }

    /** A driver object of this device's context (memory, a stream, an event), released once by {@link #close()}. */
    private abstract class DriverHandle implements AutoCloseable {
        final long handle;
        private final HandleCall release;
        private final AtomicBoolean released = new AtomicBoolean();

        /** {@code release}: the driver call that frees or destroys {@code handle}. */
        DriverHandle(long handle, HandleCall release) {
            this.handle = handle;
            this.release = release;
        }

        @Override
        public final void close() {
            if (released.compareAndSet(false, true)) {
                bind();
                driver.call(release, handle);
            }
        }
    }

    private final class Memory extends DriverHandle implements DeviceMemory {
        private final long bytes;

        Memory(long pointer, long bytes) {
            super(pointer, HandleCall.MEM_FREE);
            this.bytes = bytes;
        }

        @Override
        public long pointer() { return handle; }

        @Override
        public long byteSize() { return bytes; }
    }

    private final class Stream extends DriverHandle implements GpuStream {
        Stream(long stream) {
            super(stream, HandleCall.STREAM_DESTROY);
        }

        @Override
        public long handle() { return handle; }

        @Override
        public void copyToDeviceAsync(MemorySegment host, long devicePointer) {
            bind();
            driver.memcpyHtoDAsync(devicePointer, host.address(), host.byteSize(), handle);
        }

        @Override
        public void copyOnDeviceAsync(long sourcePointer, long destinationPointer, long bytes) {
            bind();
            driver.memcpyDtoDAsync(destinationPointer, sourcePointer, bytes, handle);
        }

        @Override
        public GpuEvent record() {
            bind();
            long event = driver.eventCreate(CudaDriver.CU_EVENT_DEFAULT);
            try {
                driver.eventRecord(event, handle);
            } catch (RuntimeException e) {
                driver.call(HandleCall.EVENT_DESTROY, event);
                throw e;
            }
            return new Event(event);
        }

        @Override
        public void synchronize() {
            bind();
            driver.call(HandleCall.STREAM_SYNCHRONIZE, handle);
        }
    }

    private final class Event extends DriverHandle implements GpuEvent {
        Event(long event) {
            super(event, HandleCall.EVENT_DESTROY);
        }

        @Override
        public boolean isComplete() {
            bind();
            return driver.eventQuery(handle);
        }

        @Override
        public void await() {
            bind();
            driver.call(HandleCall.EVENT_SYNCHRONIZE, handle);
        }

        @Override
        public double elapsedMillisSince(GpuEvent start) {
            if (!(start instanceof Event s)) {
                return Double.NaN;
            }
            bind();
            return driver.eventElapsedMillis(s.handle, handle);
        }
    }
}
