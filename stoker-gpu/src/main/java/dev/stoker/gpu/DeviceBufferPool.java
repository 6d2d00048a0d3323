package dev.stoker.gpu;

import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.pipeline.StageStats;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A fixed number of equal device buffers, allocated on first need and reused: the GPU twin of the CPU
 * loader's batch pools. {@link #acquire()} blocks while every buffer is out, which is how a consumer
 * holding its batches, or a collate stage waiting for clips, holds back the stages that fill them.
 * A buffer goes back when its {@link Buffer#close()} is called (idempotent). {@link #close()} frees every
 * buffer, those still out included (their pointers become invalid), after the device work on them ended.
 */
final class DeviceBufferPool implements AutoCloseable {
    private final GpuDevice device;
    private final String name;
    private final long bufferBytes;
    private final int maxBuffers;
    private final ArrayDeque<DeviceMemory> free = new ArrayDeque<>();
    private final List<DeviceMemory> all = new ArrayList<>();
    private long acquires;
    private long waits;
    private int waiting;
    private boolean closed;

    /**
     * The pool's counters at one moment.
     *
     * @param buffersCreated  buffers allocated so far (at most {@link #maxBuffers()})
     * @param buffersInUse    buffers out now
     * @param waits           acquires that had to wait for a buffer to come back
     * @param waitingAcquires acquires blocked now, waiting for a buffer to come back
     */
    record Usage(int buffersCreated, int buffersInUse, long acquires, long waits, int waitingAcquires) {
    }

    /**
     * @param name        what the buffers hold, for messages ("clip", "batch")
     * @param bufferBytes bytes of each buffer
     * @param maxBuffers  buffers that may exist at once
     */
    DeviceBufferPool(GpuDevice device, String name, long bufferBytes, int maxBuffers) {
        this.device = device;
        this.name = name;
        this.bufferBytes = atLeastOne("bufferBytes", bufferBytes);
        this.maxBuffers = (int) atLeastOne("maxBuffers", maxBuffers);
    }

    private static long atLeastOne(String parameter, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(parameter + ": " + value + " (expected: 1+)");
        }
        return value;
    }

    /** A buffer, allocating one if fewer than {@code maxBuffers} exist, else waiting for one to come back. */
    synchronized Buffer acquire() throws InterruptedException {
        boolean waited = false;
        while (true) {
            if (closed) {
                throw new IllegalStateException(name + " buffer pool (" + device.id() + ") is closed");
            }
            DeviceMemory memory = free.pollLast();
            if (memory == null && all.size() < maxBuffers) {
                memory = device.allocate(bufferBytes);
                all.add(memory);
                MemoryAccount.allocated(MemoryAccount.Kind.DEVICE, bufferBytes);
            }
            if (memory != null) {
                acquires++;
                waits += waited ? 1 : 0;
                return new Buffer(memory);
            }
            waited = true;
            waiting++;
            try {
                wait();
            } finally {
                waiting--;
            }
        }
    }

    /** {@link #acquire()}, an interrupt ending the wait with an {@link IllegalStateException} naming the buffers. */
    Buffer acquireInStage() {
        // A wait here is for a buffer the batches downstream hold: back-pressure, not the stage's work.
        try (StageStats.DownstreamWait w = StageStats.waitingDownstream()) {
            return Waits.await("a device " + name + " buffer", this::acquire);
        }
    }

    private synchronized void giveBack(DeviceMemory memory) {
        if (!closed) {
            free.addLast(memory);
            notify();
        }
    }

    GpuDevice device() { return device; }

    long bufferBytes() { return bufferBytes; }

    int maxBuffers() { return maxBuffers; }

    synchronized Usage usage() {
        return new Usage(all.size(), all.size() - free.size(), acquires, waits, waiting);
    }

    /**
     * Frees every buffer and fails waiting and later acquires; returns how many were still out. Idempotent
     * (later calls return 0).
     */
    synchronized int closeAndCountOutstanding() {
        if (closed) {
            return 0;
        }
        closed = true;
        notifyAll();
        int outstanding = all.size() - free.size();
        try {
            Closeables.releaseAll(all, DeviceMemory::close);
        } finally {
            MemoryAccount.freed(MemoryAccount.Kind.DEVICE, all.size() * bufferBytes);
            all.clear();
            free.clear();
        }
        return outstanding;
    }

    @Override
    public void close() {
        closeAndCountOutstanding();
    }

    @Override
    public String toString() {
        Usage usage = usage();
        return name + " buffers on " + device.id() + ": " + usage.buffersInUse() + " of " + usage.buffersCreated()
                + " out (max " + maxBuffers + " x " + bufferBytes + " bytes)";
    }

    /** One buffer of the pool: its device pointer until {@link #close()} gives it back. */
    final class Buffer implements AutoCloseable {
        private final DeviceMemory memory;
        private boolean returnedToPool;

        private Buffer(DeviceMemory memory) {
            this.memory = memory;
        }

        long pointer() { return memory.pointer(); }

        long byteSize() { return bufferBytes; }

        /** Gives the buffer back. Idempotent. */
        @Override
        public void close() {
            synchronized (this) {
                if (returnedToPool) {
                    return;
                }
                returnedToPool = true;
            }
            giveBack(memory);
        }

        @Override
        public String toString() {
            return name + " buffer 0x" + Long.toHexString(memory.pointer());
        }
    }
}
