package dev.stoker.loader.batch;

import dev.stoker.pipeline.StageStats;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed set of equal, off-heap batch buffers within a byte budget: at most
 * {@code max(1, budgetBytes / batchBytes)} buffers exist, allocated on first need and reused after
 * that, so steady state allocates no batch memory. When all are in use, {@link #acquire()} blocks:
 * the pool is the backpressure that bounds batch memory in a pipeline. {@link #raiseBudget} allows more
 * (a pipeline reconfigured while it runs).
 *
 * <p>Batches dropped without {@code close()} are detected through a {@link Cleaner}, reported on the
 * {@code dev.stoker.loader.batch} logger and their buffers returned, so leaks cannot drain the pool.
 * {@code -Dstoker.leakDetection=paranoid} makes each report name where the batch was last handed to its consumer
 * ({@link #handOut}: the consumer's code that dropped it) and where it was acquired; {@code disabled} turns
 * tracking off.
 *
 * <p>A stage that waits here for a buffer says why should the pipeline stall: when every buffer is in a batch
 * handed to the consumer and not closed, the stall report says that the consumer holds them all.
 *
 * <p>{@link #close()} frees all buffers at once; batches still out read as closed from then on.
 */
public final class BatchPool implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.stoker.loader.batch");
    /** How long a stall report waits for the pool's lock to say who holds its buffers. */
    private static final long DESCRIBE_LOCK_MILLIS = 100;
    private static final Cleaner CLEANER = Cleaner.create();
    private static final long ALIGNMENT_BYTES = 64;

    private final BatchShape shape;
    private volatile long budgetBytes;   // grows (raiseBudget), never shrinks
    private volatile int maxBuffers;
    private final LeakDetection leakDetection;
    private final BatchMemory memory;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    /** LIFO, so the most recently used (cache-warm, resident) buffer goes out next. */
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    /** Leases out now; their views must die before the arena frees the memory under them. */
    private final Set<BatchLease> outstanding = Collections.newSetFromMap(new IdentityHashMap<>());
    private int created;
    private boolean closed;
    private final AtomicLong acquires = new AtomicLong();
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong leaks = new AtomicLong();

    /**
     * @param shape geometry of every batch
     * @param budgetBytes bytes all buffers together may take; at least one buffer is allowed regardless
     */
    public BatchPool(BatchShape shape, long budgetBytes) {
        this(shape, budgetBytes, BatchMemory.offHeap(), LeakDetection.fromSystemProperty());
    }

    /**
     * A pool whose buffers come from {@code memory} (pinned host memory for GPU transfers, say); the
     * pool owns it and calls {@link BatchMemory#freeAll()} when it closes.
     */
    public BatchPool(BatchShape shape, long budgetBytes, BatchMemory memory) {
        this(shape, budgetBytes, memory, LeakDetection.fromSystemProperty());
    }

    BatchPool(BatchShape shape, long budgetBytes, LeakDetection leakDetection) {
        this(shape, budgetBytes, BatchMemory.offHeap(), leakDetection);
    }

    BatchPool(BatchShape shape, long budgetBytes, BatchMemory memory, LeakDetection leakDetection) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.shape = Objects.requireNonNull(shape, "shape");
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes: " + budgetBytes + " (expected: 0+)");
        }
        this.budgetBytes = budgetBytes;
        this.maxBuffers = buffersFor(budgetBytes);
        this.leakDetection = leakDetection;
    }

    /** Takes a batch, waiting for one to be closed if all buffers are out. */
    public ClipBatch acquire() throws InterruptedException {
        ClipBatch batch = tryAcquire(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        assert batch != null;
        return batch;
    }

    /**
     * Takes a batch like {@link #acquire()}, for a pipeline stage whose function cannot throw checked exceptions:
     * an interrupt (the pipeline closing) keeps the thread's interrupt flag and fails with a message naming
     * {@code what} was awaited.
     */
    public ClipBatch acquireInStage(String what) {
        try {
            return acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    /** Takes a batch, waiting at most {@code timeout}; returns null if none became free in time. */
    public ClipBatch tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        Throwable acquiredAt = leakDetection.acquisitionTrace();
        MemorySegment buffer;
        BatchLease lease;
        lock.lockInterruptibly();
        try {
            checkOpen();
            long remainingNanos = unit.toNanos(timeout);
            boolean waited = false;
            // Every buffer is out, held by the batches downstream (the consumer's): a stage waiting here is
            // back-pressured, not busy, and should nothing move, the stall report asks the pool who holds them.
            boolean full = free.isEmpty() && created == maxBuffers;
            try (StageStats.DownstreamWait w = full ? StageStats.waitingDownstream(this::describeWait) : null) {
                while (free.isEmpty() && created == maxBuffers) {
                    if (remainingNanos <= 0) {
                        return null;
                    }
                    if (!waited) {
                        waited = true;
                        waits.incrementAndGet();
                    }
                    remainingNanos = released.awaitNanos(remainingNanos);
                    checkOpen();
                }
            }
            buffer = free.pollFirst();
            if (buffer == null) {
                buffer = memory.allocate(shape.batchBytes(), ALIGNMENT_BYTES);
                created++;
            }
            lease = new BatchLease(this, buffer, acquiredAt, "ClipBatch " + shape);
            outstanding.add(lease);
            acquires.incrementAndGet();
        } finally {
            lock.unlock();
        }
        return new ClipBatch(shape, lease, leakDetection.tracks() ? CLEANER : null);
    }

    /**
     * What a stage waiting for a buffer waits for, for a stall report: when every buffer is in a batch handed to
     * the consumer and not closed, nothing in the pipeline can free one, so the consumer (or code it gave them to)
     * holds them all, and that is the cause.
     */
    private String describeWait() {
        // The watchdog's thread asks: a pool whose lock an allocation holds must not keep the stall report from coming.
        try {
            if (!lock.tryLock(DESCRIBE_LOCK_MILLIS, TimeUnit.MILLISECONDS)) {
                return "a free buffer of BatchPool[" + shape + "] (its lock busy: an allocation under way)";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "a free buffer of BatchPool[" + shape + "]";
        }
        try {
            int held = heldByConsumer();
            if (held == maxBuffers) {   // held <= in use <= created <= maxBuffers: every buffer is the consumer's
                return "a free buffer of " + this + ": all " + maxBuffers + " batch buffers are held by the consumer"
                        + " (handed out, not closed): close each batch when done with it (or open the loader with"
                        + " Opening.consumerHolding(n) to hold n at once; a batch dropped unclosed comes back only when"
                        + " the GC finds it)";
            }
            return "a free buffer of " + this + ": " + outstanding.size() + " of " + maxBuffers + " in use, " + held
                    + " of them in batches held by the consumer (handed out, not closed)";
        } finally {
            lock.unlock();
        }
    }

    private int heldByConsumer() {
        int held = 0;
        for (BatchLease lease : outstanding) {
            if (lease.handedOut()) {
                held++;
            }
        }
        return held;
    }

    /**
     * Notes that {@code batch} goes to its consumer now (the loader's iterator calls this as {@code next()} returns
     * it, as Netty's {@code touch()} marks a buffer): until closed, it counts as held by the consumer
     * ({@link #buffersHeldByConsumer()}, the stall report of a stage waiting here), and where leak detection keeps
     * stacks for it (paranoid; simple's sampled ones), a leak report names the caller: the consumer's code.
     *
     * @throws IllegalArgumentException if {@code batch} is not one of this pool's
     */
    public void handOut(ClipBatch batch) {
        BatchLease lease = batch.lease();
        if (!lease.isOf(this)) {
            throw new IllegalArgumentException("batch: " + batch + " is not one of " + this
                    + " (expected: a batch this pool made)");
        }
        lease.handOut(leakDetection.handOutTrace(lease.tracesAcquisition()));
    }

    private int buffersFor(long bytes) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, bytes / shape.batchBytes()));
    }

    /**
     * Raises the budget to {@code bytes} when that is more (a pipeline reconfigured to hold more batches at
     * once); waiters wake and allocate. Buffers are still allocated only when needed, so a larger budget
     * costs nothing until it is used. A smaller value changes nothing.
     */
    public void raiseBudget(long bytes) {
        lock.lock();
        try {
            if (bytes <= budgetBytes) {
                return;
            }
            budgetBytes = bytes;
            maxBuffers = buffersFor(bytes);
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void release(BatchLease lease, MemorySegment buffer) {
        lock.lock();
        try {
            if (closed || !outstanding.remove(lease)) {
                return;
            }
            free.addFirst(buffer);
            released.signal();
        } finally {
            lock.unlock();
        }
    }

    void reportLeak(String description, Throwable acquiredAt, Throwable handedOutAt) {
        lock.lock();
        try {
            if (closed) {
                return;   // its buffer was freed with the pool: nothing leaked
            }
        } finally {
            lock.unlock();
        }
        leaks.incrementAndGet();
        LOG.log(System.Logger.Level.WARNING, leakReport(description, acquiredAt, handedOutAt));
    }

    /** The report of a leaked batch: the consumer's stack first, where known, for it is the code that dropped it. */
    private static String leakReport(String description, Throwable acquiredAt, Throwable handedOutAt) {
        StringBuilder report = new StringBuilder("LEAK: ").append(description)
                .append(" became unreachable without close(); its buffer was returned to the pool.");
        if (acquiredAt == null && handedOutAt == null) {
            return report.append(" Run with -D").append(LeakDetection.PROPERTY)
                    .append("=paranoid to see where it was handed out and acquired.").toString();
        }
        if (handedOutAt != null) {
            report.append(" Last handed out at:\n").append(stackOf(handedOutAt));
        }
        if (acquiredAt != null) {
            report.append(handedOutAt != null ? "Acquired at:\n" : " Acquired at:\n").append(stackOf(acquiredAt));
        }
        return report.toString();
    }

    private static String stackOf(Throwable trace) {
        StringWriter text = new StringWriter();
        trace.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    public BatchShape shape() { return shape; }

    public long budgetBytes() { return budgetBytes; }

    /** Most buffers this pool will hold (until {@link #raiseBudget}): {@code max(1, budgetBytes / batchBytes)}. */
    public int maxBuffers() { return maxBuffers; }

    /** Buffers allocated so far; stops growing at {@link #maxBuffers()}. */
    public int buffersCreated() {
        lock.lock();
        try {
            return created;
        } finally {
            lock.unlock();
        }
    }

    /** Batches handed out and not yet closed (or reclaimed as leaks). */
    public int buffersInUse() {
        lock.lock();
        try {
            return outstanding.size();
        } finally {
            lock.unlock();
        }
    }

    /** Batches that went to the consumer ({@link #handOut}) and are not closed yet (nor reclaimed as leaks). */
    public int buffersHeldByConsumer() {
        lock.lock();
        try {
            return heldByConsumer();
        } finally {
            lock.unlock();
        }
    }

    /** Batches handed out over the pool's life. */
    public long acquires() { return acquires.get(); }

    /** Acquisitions that had to wait for a buffer: how often batch memory was the bottleneck. */
    public long waits() { return waits.get(); }

    /** Batches reclaimed after becoming unreachable without close(). */
    public long leaksDetected() { return leaks.get(); }

    /**
     * Frees every buffer. Waiting and later acquires fail; batches still out read as closed from then on (their
     * accessors throw; memory freed is never read). Idempotent.
     */
    @Override
    public void close() {
        List<BatchLease> stillOut;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            free.clear();
            stillOut = List.copyOf(outstanding);
            outstanding.clear();
            released.signalAll();
        } finally {
            lock.unlock();
        }
        // Views first: a batch used after the pool closed must fail, not touch freed memory.
        stillOut.forEach(BatchLease::invalidateViews);
        memory.freeAll();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("BatchPool is closed");
        }
    }

    @Override
    public String toString() {
        return "BatchPool[" + shape + ", maxBuffers=" + maxBuffers + ", created=" + buffersCreated()
                + ", inUse=" + buffersInUse() + ", heldByConsumer=" + buffersHeldByConsumer() + ", acquires=" + acquires()
                + ", waits=" + waits() + "]";
    }
}
