package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.QueueStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded FIFO between two stages. A ring buffer guarded by one lock, as in
 * {@link java.util.concurrent.ArrayBlockingQueue}, with three additions the engine needs:
 * <ul>
 *   <li>occupancy sampling (mean fill, share of samples empty and full), fed by the housekeeper's
 *       tick so that puts and takes pay nothing for it;</li>
 *   <li>a take ticket: the n-th element taken gets ticket n, assigned atomically with the take, which
 *       is what lets an ordered stage restore input order;</li>
 *   <li>marker gating: taking a {@link Marker} pauses the queue so that no element behind the marker
 *       is taken until the stage has forwarded it ({@link #resume()}) — epoch boundaries stay exact.</li>
 * </ul>
 * {@link #close()} wakes every waiter; {@link #finish()} makes every later take return {@link #FINISHED}.
 * At run time, {@link #setCapacity} resizes the ring and {@link #retire} asks that many takers to leave
 * (their take returns {@link #RETIRE}): that is how a stage's concurrency and queue change while it runs.
 */
final class BoundedQueue {
    /** Returned by take once the stream has ended and the stage's workers should exit. */
    static final Object FINISHED = new Object() {
        @Override public String toString() { return "FINISHED"; }
    };

    /** Returned by take to a worker asked to leave ({@link #retire}); it has taken nothing. */
    static final Object RETIRE = new Object() {
        @Override public String toString() { return "RETIRE"; }
    };

    /** Thrown to a producer or consumer when the pipeline is shutting down. */
    static final class ClosedException extends RuntimeException {
        ClosedException() { super("queue closed", null, false, false); }
    }

    private final String name;
    private Object[] items;          // ring; its length is at least capacity (more only while shrinking)
    private volatile int capacity;
    private int retireRequests;
    private int head;
    private int tail;
    private int count;
    private long takeTickets;
    private boolean paused;
    private boolean finished;
    private boolean closed;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();

    // Occupancy samples, taken by the housekeeper every tick (see sample()): timing every put and take
    // inside the lock made the lock busier and cost a clock read per operation.
    private long samples;
    private double fillSum;          // sum of size / capacity per sample (the capacity can change)
    private long emptySamples;
    private long fullSamples;

    BoundedQueue(String name, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("queue '" + name + "' capacity: " + capacity + " (expected: 1+)");
        }
        this.name = name;
        this.items = new Object[capacity];
        this.capacity = capacity;
    }

    String name() { return name; }

    int capacity() { return capacity; }

    /**
     * Changes the capacity while the queue is in use. Growing wakes blocked producers; shrinking below the
     * current size drops nothing: producers wait until takes bring the size under the new capacity.
     */
    void setCapacity(int newCapacity) {
        if (newCapacity < 1) {
            throw new IllegalArgumentException("queue '" + name + "' capacity: " + newCapacity + " (expected: 1+)");
        }
        lock.lock();
        try {
            if (newCapacity != items.length && count <= newCapacity || newCapacity > items.length) {
                Object[] ring = new Object[Math.max(newCapacity, count)];
                for (int i = 0; i < count; i++) {
                    ring[i] = items[(head + i) % items.length];
                }
                items = ring;
                head = 0;
                tail = count % ring.length;
            }
            capacity = newCapacity;
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Asks {@code takers} more takers to leave: each of the next ones gets {@link #RETIRE} instead of an element. */
    void retire(int takers) {
        changeForTakers(() -> retireRequests += takers);
    }

    /** Withdraws up to {@code takers} retire requests not yet served; returns how many it withdrew. */
    int cancelRetire(int takers) {
        lock.lock();
        try {
            int cancelled = Math.min(takers, retireRequests);
            retireRequests -= cancelled;
            return cancelled;
        } finally {
            lock.unlock();
        }
    }

    /** Blocks while full. */
    void put(Object element) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (count >= capacity && !closed) {
                notFull.await();
            }
            if (closed) {
                throw new ClosedException();
            }
            items[tail] = element;
            tail = (tail + 1) % items.length;
            count++;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Takes the next element, or returns {@link #FINISHED}; {@code ticketOut[0]} receives its take ticket. */
    Object take(long[] ticketOut) throws InterruptedException {
        return poll(Long.MAX_VALUE, ticketOut);
    }

    /** Like {@link #take} but gives up after the timeout, returning {@code null}. */
    Object poll(long timeoutNanos, long[] ticketOut) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = timeoutNanos;
            while ((count == 0 || paused) && !finished && !closed && retireRequests == 0) {
                if (remaining <= 0) {
                    return null;
                }
                remaining = remaining == Long.MAX_VALUE ? awaitForever() : notEmpty.awaitNanos(remaining);
            }
            if (closed) {
                throw new ClosedException();
            }
            if (retireRequests > 0) {
                retireRequests--;
                return RETIRE;
            }
            if (finished) {
                return FINISHED;
            }
            return dequeue(ticketOut);
        } finally {
            lock.unlock();
        }
    }

    private long awaitForever() throws InterruptedException {
        notEmpty.await();
        return Long.MAX_VALUE;
    }

    private Object dequeue(long[] ticketOut) {
        Object element = items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        count--;
        if (ticketOut != null) {
            ticketOut[0] = takeTickets;
        }
        takeTickets++;
        if (element instanceof Marker) {
            paused = true;
        } else if (count > 0) {
            notEmpty.signal();
        }
        notFull.signal();
        return element;
    }

    /** Lets takers past a marker that was taken. */
    void resume() {
        changeForTakers(() -> paused = false);
    }

    /** Every later take returns {@link #FINISHED}: the end of stream has passed through. */
    void finish() {
        changeForTakers(() -> finished = true);
    }

    /**
     * Makes a change to what takes return (a retire request, the pause, the end) under the lock, and wakes every
     * waiting taker: a resume or the end concerns all of them, a retire request as many as it asks to leave.
     */
    private void changeForTakers(Runnable change) {
        lock.lock();
        try {
            change.run();
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes all waiters with {@link ClosedException}; returns what was still queued, for release. */
    List<Object> close() {
        lock.lock();
        try {
            closed = true;
            List<Object> left = new ArrayList<>(count);
            while (count > 0) {
                left.add(items[head]);
                items[head] = null;
                head = (head + 1) % items.length;
                count--;
            }
            notEmpty.signalAll();
            notFull.signalAll();
            return left;
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    boolean isFull() {
        lock.lock();
        try {
            return count >= capacity;
        } finally {
            lock.unlock();
        }
    }

    /** Records the current fill; called by the housekeeper every tick. */
    void sample() {
        lock.lock();
        try {
            samples++;
            fillSum += Math.min(1.0, (double) count / capacity);
            if (count == 0) {
                emptySamples++;
            } else if (count >= capacity) {
                fullSamples++;
            }
        } finally {
            lock.unlock();
        }
    }

    QueueStats snapshot() {
        lock.lock();
        try {
            if (samples == 0) {
                return new QueueStats(capacity, count, Math.min(1, (double) count / capacity), count == 0 ? 1 : 0,
                        count >= capacity ? 1 : 0);
            }
            return new QueueStats(capacity, count, fillSum / samples,
                    (double) emptySamples / samples, (double) fullSamples / samples);
        } finally {
            lock.unlock();
        }
    }

}
