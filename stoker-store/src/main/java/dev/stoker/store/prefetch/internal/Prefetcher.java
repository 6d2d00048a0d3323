package dev.stoker.store.prefetch.internal;

import dev.stoker.store.prefetch.PrefetchStats;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reads ahead along a known order (a sampler's upcoming sequence): up to {@code aheadItems} items are
 * read or being read before the consumer asks, each read on a virtual thread, under a byte budget that
 * is never exceeded — an item's announced size ({@link PrefetchReader#sizeBytes}) is reserved before its read
 * starts and freed when the consumer takes it. An item larger than the whole budget, or one that cannot be sized,
 * is not read ahead but keeps its place among the {@code aheadItems}: its taker reads it on demand.
 *
 * <p>The consumer asks by key ({@link #take}), from any number of threads: a prefetched item is handed
 * over (a hit), anything else is read on the spot (a miss). Items read ahead and passed over by more
 * than {@code aheadItems} positions are dropped. {@link #close()} interrupts the reads in flight, waits
 * for them and releases every item not taken.
 *
 * <pre>{@code
 * EpochSampler sampler = ...;
 * try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(
 *         sampler.epoch(e).stream().map(SampleDraw::sampleIndex).iterator(), shardReader, 32, Prefetcher.defaultBudgetBytes())) {
 *     for (SampleDraw d : sampler.epoch(e)) train(decode(ahead.take(d.sampleIndex())));
 *     System.out.println(ahead.stats());
 * }
 * }</pre>
 *
 * @param <K> the key of an item (a sample index, a path)
 * @param <V> what a read gives (bytes, a segment)
 */
public final class Prefetcher<K, V> implements AutoCloseable {

    /** min(1 GiB, 5% of physical memory). */
    public static long defaultBudgetBytes() {
        long physical = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return Math.max(1, Math.min(1L << 30, physical / 20));
    }

    private final Iterator<? extends K> upcoming;
    private final PrefetchReader<K, V> reader;
    private final int aheadItems;
    private final long budgetBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<K, ArrayDeque<PrefetchEntry<K, V>>> held = new HashMap<>();
    private final ArrayDeque<PrefetchEntry<K, V>> heldInOrder = new ArrayDeque<>();
    private K next;               // the next upcoming key not yet scheduled, or null
    private long nextSizeBytes = -1;
    private long scheduled;       // sequence number of the next item scheduled
    private long furthestTaken = -1;
    private long heldBytes;
    private long peakHeldBytes;
    private final long startNanos = System.nanoTime();
    private long heldChangedNanos = startNanos;
    private double heldByteNanos; // the integral of heldBytes over time, for the mean occupancy
    private long requests;
    private long hits;
    private long waits;
    private long misses;
    private long bytesRead;
    private long dropped;
    private long tooLarge;
    private int onDemandHeld;     // entries of heldInOrder that are onDemand: places, not items held
    private boolean closed;

    private Prefetcher(Iterator<? extends K> upcoming, PrefetchReader<K, V> reader, int aheadItems, long budgetBytes) {
        this.upcoming = Objects.requireNonNull(upcoming, "upcoming");
        this.reader = Objects.requireNonNull(reader, "reader");
        if (aheadItems < 1) {
            throw new IllegalArgumentException("aheadItems: " + aheadItems + " (expected: 1+)");
        }
        if (budgetBytes < 1) {
            throw new IllegalArgumentException("budgetBytes: " + budgetBytes + " (expected: 1+)");
        }
        this.aheadItems = aheadItems;
        this.budgetBytes = budgetBytes;
    }

    /** Starts reading ahead along {@code upcoming}. */
    public static <K, V> Prefetcher<K, V> start(Iterator<? extends K> upcoming, PrefetchReader<K, V> reader, int aheadItems,
                                                long budgetBytes) {
        Prefetcher<K, V> p = new Prefetcher<>(upcoming, reader, aheadItems, budgetBytes);
        p.lock.lock();
        try {
            p.fill();
        } finally {
            p.lock.unlock();
        }
        return p;
    }

    /** Starts with 16 items ahead and the {@linkplain #defaultBudgetBytes() default budget}. */
    public static <K, V> Prefetcher<K, V> start(Iterator<? extends K> upcoming, PrefetchReader<K, V> reader) {
        return start(upcoming, reader, 16, defaultBudgetBytes());
    }

    /**
     * The item for {@code key}: the prefetched one (waiting for its read if it is in flight), or read now.
     * The caller owns what it gets.
     *
     * @throws IOException the read's failure
     * @throws InterruptedException if interrupted while waiting for a read in flight
     * @throws IllegalStateException if the prefetcher is closed
     */
    public V take(K key) throws IOException, InterruptedException {
        PrefetchEntry<K, V> entry;
        lock.lockInterruptibly();
        try {
            ensureOpen();
            requests++;
            ArrayDeque<PrefetchEntry<K, V>> same = held.get(key);
            entry = same == null ? null : same.pollFirst();
            if (same != null && same.isEmpty()) {
                held.remove(key);
            }
            if (entry == null) {
                misses++;
                if (key.equals(next)) {
                    advance(); // the consumer is ahead of the prefetcher: do not read this one again
                    fill();
                }
            } else if (entry.onDemand) {
                heldInOrder.remove(entry);
                onDemandHeld--;
                misses++;
                furthestTaken = Math.max(furthestTaken, entry.sequence);
                dropPassedOver();
                fill();
                entry = null; // read below, as any miss
            } else {
                // Claimed: no other taker gets it, but it stays held (and closable) until its read is done.
                entry.claimed = true;
                if (!entry.done) {
                    waits++;
                    try {
                        while (!entry.done && !closed) {
                            changed.await();
                        }
                    } catch (InterruptedException e) {
                        abandon(entry);
                        throw e;
                    }
                }
                ensureOpen(); // closed meanwhile: close() releases the item
                heldInOrder.remove(entry);
                hits++;
                changeHeld(-entry.reservedBytes);
                furthestTaken = Math.max(furthestTaken, entry.sequence);
                dropPassedOver();
                fill();
            }
        } finally {
            lock.unlock();
        }
        if (entry == null) {
            V value = reader.read(key);
            count(reader.byteSize(value));
            return value;
        }
        if (entry.failure instanceof IOException e) {
            throw new IOException(key + ": prefetch read failed: " + e.getMessage(), e);
        }
        if (entry.failure != null) {
            throw new IllegalStateException(key + ": prefetch read failed: " + entry.failure, entry.failure);
        }
        return entry.value;
    }

    private void count(long bytes) {
        lock.lock();
        try {
            bytesRead += bytes;
        } finally {
            lock.unlock();
        }
    }

    public PrefetchStats stats() {
        lock.lock();
        try {
            long now = System.nanoTime();
            double meanHeldBytes = now == startNanos ? heldBytes
                    : (heldByteNanos + (double) heldBytes * (now - heldChangedNanos)) / (now - startNanos);
            return new PrefetchStats(requests, hits, waits, misses, bytesRead, heldBytes, heldInOrder.size() - onDemandHeld,
                    peakHeldBytes, budgetBytes, dropped, tooLarge, meanHeldBytes / budgetBytes);
        } finally {
            lock.unlock();
        }
    }

    /** Stops reading ahead: interrupts reads in flight, waits for them, releases every item not taken. */
    @Override
    public void close() {
        List<Thread> readers = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (PrefetchEntry<K, V> e : heldInOrder) {
                if (!e.done && e.thread != null) {
                    e.thread.interrupt();
                    readers.add(e.thread);
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        for (Thread t : readers) {
            try {
                if (!t.join(java.time.Duration.ofSeconds(30))) {
                    System.err.println("prefetcher: reader " + t + " ignored interruption for 30 s; leaving it");
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        lock.lock();
        try {
            for (PrefetchEntry<K, V> e : heldInOrder) {
                if (e.done) {
                    release(e);
                }
            }
            heldInOrder.clear();
            onDemandHeld = 0;
            held.clear();
            changeHeld(-heldBytes);
        } finally {
            lock.unlock();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Changes the bytes held, keeping the time integral behind the mean occupancy. Holds the lock. */
    private void changeHeld(long deltaBytes) {
        long now = System.nanoTime();
        heldByteNanos += (double) heldBytes * (now - heldChangedNanos);
        heldChangedNanos = now;
        heldBytes += deltaBytes;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("prefetcher closed");
        }
    }

    /** Items read ahead that the consumer went past by more than the lookahead will not be asked for. */
    private void dropPassedOver() {
        while (!heldInOrder.isEmpty() && heldInOrder.peekFirst().sequence < furthestTaken - aheadItems
                && heldInOrder.peekFirst().done && !heldInOrder.peekFirst().claimed) {
            PrefetchEntry<K, V> e = heldInOrder.pollFirst();
            ArrayDeque<PrefetchEntry<K, V>> same = held.get(e.key);
            same.remove(e);
            if (same.isEmpty()) {
                held.remove(e.key);
            }
            if (e.onDemand) {
                onDemandHeld--;
                continue;
            }
            changeHeld(-e.reservedBytes);
            dropped++;
            release(e);
        }
    }

    /** A claimed item whose taker gave up waiting: freed now, or by its reader when done. */
    private void abandon(PrefetchEntry<K, V> e) {
        heldInOrder.remove(e);
        changeHeld(-e.reservedBytes);
        dropped++;
        e.abandoned = true;
        release(e);
        fill();
    }

    private void release(PrefetchEntry<K, V> e) {
        if (e.value != null) {
            try {
                reader.release(e.value);
            } catch (RuntimeException ex) {
                System.err.println("prefetcher: releasing " + e.key + " failed: " + ex);
            }
            e.value = null;
        }
    }

    /**
     * Schedules reads while the lookahead and the budget allow. Holds the lock.
     *
     * <p>An item it will not read ahead (larger than the budget, or one it cannot size: a damaged record) still takes
     * its place in the lookahead, as an entry its taker reads on demand. Passed over without a place, such items
     * kept this loop drawing from the upcoming sequence, which may be endless: every record of an endless run
     * damaged (a shard truncated or deleted) spun here forever, at open. A place also lets the taker's own read
     * report the damage, and resumes reading ahead when it is taken.
     */
    private void fill() {
        while (!closed && heldInOrder.size() < aheadItems) {
            if (next == null && !advance()) {
                return;
            }
            if (nextSizeBytes < 0) {
                try {
                    nextSizeBytes = reader.sizeBytes(next);
                } catch (IOException | RuntimeException e) {
                    nextSizeBytes = Long.MAX_VALUE; // cannot size it: leave it to the consumer's own read
                }
            }
            boolean onDemand = nextSizeBytes > budgetBytes;
            if (!onDemand && heldBytes + nextSizeBytes > budgetBytes) {
                return; // wait for the consumer to take something
            }
            PrefetchEntry<K, V> e = new PrefetchEntry<>(next, scheduled++, onDemand ? 0 : nextSizeBytes);
            heldInOrder.addLast(e);
            held.computeIfAbsent(e.key, k -> new ArrayDeque<>()).addLast(e);
            next = null;
            if (onDemand) {
                tooLarge++;
                onDemandHeld++;
                e.onDemand = true;
                e.done = true;
                continue;
            }
            changeHeld(e.reservedBytes);
            peakHeldBytes = Math.max(peakHeldBytes, heldBytes);
            e.thread = Thread.ofVirtual().name("prefetch-" + e.sequence).start(() -> read(e));
        }
    }

    /** Moves to the next upcoming key; false at the end. */
    private boolean advance() {
        nextSizeBytes = -1;
        next = upcoming.hasNext() ? upcoming.next() : null;
        return next != null;
    }

    private void read(PrefetchEntry<K, V> e) {
        V value = null;
        Throwable failure = null;
        try {
            value = reader.read(e.key);
            long bytes = reader.byteSize(value);
            if (bytes > e.reservedBytes) {
                reader.release(value);
                value = null;
                failure = new IOException(e.key + ": read " + bytes + " bytes (expected: at most the "
                        + e.reservedBytes + " announced by sizeBytes)");
            }
        } catch (Throwable t) {
            failure = Thread.currentThread().isInterrupted() && !(t instanceof InterruptedIOException)
                    ? new InterruptedIOException("prefetch of " + e.key + " interrupted") : t;
        }
        lock.lock();
        try {
            e.value = value;
            e.failure = failure;
            e.done = true;
            if (value != null) {
                bytesRead += reader.byteSize(value);
            }
            if ((closed || e.abandoned) && value != null) {
                release(e);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return stats().toString();
    }
}
