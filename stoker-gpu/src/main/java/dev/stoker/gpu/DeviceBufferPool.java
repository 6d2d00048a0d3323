package dev.stoker.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    private final ArrayDeque<DeviceMemory> free = new ArrayDeque<>();
    private final List<DeviceMemory> all = new ArrayList<>();
    private int out;
    private long acquires;
    private long waits;
    private boolean closed;

    /**
     * @param name        what the buffers hold, for messages ("clip", "batch")
     * @param bufferBytes bytes of each buffer
     * @param maxBuffers  buffers that may exist at once
     */
    DeviceBufferPool(GpuDevice device, String name, long bufferBytes, int maxBuffers) {
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("bufferBytes: " + bufferBytes + " (expected: 1+)");
        }
        if (maxBuffers < 1) {
            throw new IllegalArgumentException("maxBuffers: " + maxBuffers + " (expected: 1+)");
        }
        this.device = device;
        this.name = name;
        this.bufferBytes = bufferBytes;
        this.maxBuffers = maxBuffers;
    }

    /** A buffer, allocating one if fewer than {@code maxBuffers} exist, else waiting for one to come back. */
    Buffer acquire() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            boolean waited = false;
            while (true) {
                if (closed) {
                    throw new IllegalStateException(name + " buffer pool (" + device.id() + ") is closed");
                }
                DeviceMemory memory = free.pollLast();
                if (memory == null && all.size() < maxBuffers) {
                    memory = device.allocate(bufferBytes);
                    all.add(memory);
                }
                if (memory != null) {
                    out++;
                    acquires++;
                    if (waited) {
                        waits++;
                    }
                    return new Buffer(memory);
                }
                waited = true;
                returned.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void giveBack(DeviceMemory memory) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            out--;
            free.addLast(memory);
            returned.signal();
        } finally {
            lock.unlock();
        }
    }

    long bufferBytes() {
        return bufferBytes;
    }

    int maxBuffers() {
        return maxBuffers;
    }

    /** Buffers allocated so far (at most {@link #maxBuffers()}). */
    int buffersCreated() {
        lock.lock();
        try {
            return all.size();
        } finally {
            lock.unlock();
        }
    }

    /** Buffers out now. */
    int buffersInUse() {
        lock.lock();
        try {
            return out;
        } finally {
            lock.unlock();
        }
    }

    long acquires() {
        lock.lock();
        try {
            return acquires;
        } finally {
            lock.unlock();
        }
    }

    /** Acquires that had to wait for a buffer to come back. */
    long waits() {
        lock.lock();
        try {
            return waits;
        } finally {
            lock.unlock();
        }
    }

    /** Acquires blocked now, waiting for a buffer to come back. */
    int waitingAcquires() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(returned);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Frees every buffer and fails waiting and later acquires; returns how many were still out. Idempotent
     * (later calls return 0).
     */
    int closeAndCountOutstanding() {
        lock.lock();
        try {
            if (closed) {
                return 0;
            }
            closed = true;
            returned.signalAll();
            int outstanding = out;
            RuntimeException first = null;
            for (DeviceMemory memory : all) {
                try {
                    memory.close();
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            all.clear();
            free.clear();
            if (first != null) {
                throw first;
            }
            return outstanding;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closeAndCountOutstanding();
    }

    @Override
    public String toString() {
        return name + " buffers on " + device.id() + ": " + buffersInUse() + " of " + buffersCreated() + " out (max "
                + maxBuffers + " x " + bufferBytes + " bytes)";
    }

    /** One buffer of the pool: its device pointer until {@link #close()} gives it back. */
    final class Buffer implements AutoCloseable {
        private final DeviceMemory memory;
        private boolean returnedToPool;

        private Buffer(DeviceMemory memory) {
            this.memory = memory;
        }

        long pointer() {
            return memory.pointer();
        }

        long byteSize() {
            return bufferBytes;
        }

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
