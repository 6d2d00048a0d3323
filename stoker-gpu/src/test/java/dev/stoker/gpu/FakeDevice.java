package dev.stoker.gpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device made of off-heap memory, for testing what drives a GPU without one. Device memory is plain
 * memory whose address is the "device pointer"; a stream queues its work and runs it only when the test
 * says so ({@link FakeStream#runNext()}, {@link FakeStream#runAll()}), or at once in auto mode; events
 * complete when the stream reaches them.
 */
final class FakeDevice implements GpuDevice {
    final OffHeapHostAllocator host = new OffHeapHostAllocator();
    final List<FakeStream> streams = new ArrayList<>();
    final Map<Long, Arena> deviceMemory = new ConcurrentHashMap<>();
    final AtomicInteger liveEvents = new AtomicInteger();
    final AtomicInteger copiesQueued = new AtomicInteger();
    final AtomicInteger copiesOnDevice = new AtomicInteger();
    volatile boolean autoRun;
    volatile boolean closed;

    FakeDevice(boolean autoRun) {
        this.autoRun = autoRun;
    }

    @Override
    public String id() {
        return "fake:0";
    }

    @Override
    public String name() {
        return "fake device";
    }

    @Override
    public HostAllocator hostAllocator() { return host; }

    @Override
    public DeviceMemory allocate(long bytes) {
        Arena arena = Arena.ofShared();
        MemorySegment segment = arena.allocate(bytes, 256);
        deviceMemory.put(segment.address(), arena);
        return new Memory(segment.address(), bytes, deviceMemory, new AtomicBoolean());
    }

    /** "Device" memory: host memory, its address the pointer, freed (its arena closed) once. */
    private record Memory(long pointer, long byteSize, Map<Long, Arena> live, AtomicBoolean freed) implements DeviceMemory {
        @Override
        public void close() {
            if (freed.compareAndSet(false, true)) {
                live.remove(pointer).close();
            }
        }
    }

    /** The device bytes at {@code pointer}. */
    @SuppressWarnings("restricted")
    static MemorySegment deviceBytes(long pointer, long bytes) {
        return MemorySegment.ofAddress(pointer).reinterpret(bytes);
    }

    @Override
    public synchronized GpuStream createStream() {
        FakeStream stream = new FakeStream();
        streams.add(stream);
        return stream;
    }

    synchronized FakeStream stream() { return streams.getFirst(); }

    @Override
    public void close() {
        closed = true;
    }

    final class FakeStream implements GpuStream {
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        volatile boolean destroyed;

        @Override
        public long handle() { return 0; }

        @Override
        public void copyToDeviceAsync(MemorySegment host, long devicePointer) {
            // Copy at run time, not now: the host buffer must still hold the data then.
            copiesQueued.incrementAndGet();
            enqueue(() -> MemorySegment.copy(host, 0, deviceBytes(devicePointer, host.byteSize()), 0, host.byteSize()));
        }

        @Override
        public void copyOnDeviceAsync(long sourcePointer, long destinationPointer, long bytes) {
            copiesOnDevice.incrementAndGet();
            enqueue(() -> MemorySegment.copy(deviceBytes(sourcePointer, bytes), 0, deviceBytes(destinationPointer, bytes),
                    0, bytes));
        }

        @Override
        public GpuEvent record() {
            FakeEvent event = new FakeEvent();
            liveEvents.incrementAndGet();
            enqueue(event::complete);
            return event;
        }

        private void enqueue(Runnable work) {
            synchronized (this) {
                queue.addLast(work);
            }
            if (autoRun) {
                runAll();
            }
        }

        /** Runs the oldest queued operation; false if none. */
        boolean runNext() {
            Runnable work;
            synchronized (this) {
                work = queue.pollFirst();
            }
            if (work == null) {
                return false;
            }
            work.run();
            return true;
        }

        void runAll() {
            while (runNext()) {
                // drain
            }
        }

        synchronized int queued() { return queue.size(); }

        @Override
        public void synchronize() {
            runAll();
        }

        @Override
        public void close() {
            destroyed = true;
        }
    }

    final class FakeEvent implements GpuEvent {
        private boolean complete;
        private boolean destroyed;

        synchronized void complete() {
            complete = true;
            notifyAll();
        }

        @Override
        public synchronized boolean isComplete() {
            checkLive();
            return complete;
        }

        @Override
        public void await() {
            checkLive();
            // Like cuEventSynchronize; in manual mode the test runs the stream to get there.
            synchronized (this) {
                while (!complete) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }
        }

        @Override
        public double elapsedMillisSince(GpuEvent start) {
            return Double.NaN;
        }

        @Override
        public synchronized void close() {
            if (!destroyed) {
                destroyed = true;
                liveEvents.decrementAndGet();
            }
        }

        private synchronized void checkLive() {
            if (destroyed) {
                throw new IllegalStateException("event used after close (cuEventDestroy)");
            }
        }
    }
}
