package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.pipeline.TraceRecorder;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The transfer stage: takes host batches (pinned, written by collate) in order, copies each to a device
 * buffer asynchronously on a stream of its own, and hands out {@link DeviceBatch}es in the same order,
 * so that batch k+1 is copied while the consumer works on batch k.
 *
 * <pre>
 *   host batches ──► [transfer thread] cuMemcpyHtoDAsync on the copy stream ──► ready queue ──► next()
 *                     host buffer released once the copy's event completes
 * </pre>
 *
 * <p>It holds {@code prefetchDepth + 1} device buffers: up to {@code prefetchDepth} batches copied or
 * being copied ahead, plus the consumer's. When they are all out, the transfer thread waits for the
 * consumer to close one (backpressure on to the loader). A host batch goes back to its pool only after
 * the event recorded behind its copy has completed, and at most {@value #COPIES_HOLDING_HOST} copies hold
 * host buffers at a time, so the loader's batch pool never starves waiting for the device.
 *
 * <p>With a {@link TraceRecorder}, every copy is a slice of category {@code gpu} on a track of the copy
 * stream (placed by the device's own timing where it has one), the consumer's use of each batch a
 * slice on the consumer's thread: their overlap is the double buffering, visible in Perfetto.
 */
final class DeviceTransfer implements Iterator<DeviceBatch>, AutoCloseable {
    /** Copies in flight that still hold their host buffer: one copying, one queued behind it. */
    static final int COPIES_HOLDING_HOST = 2;
    /** The copy stream's track in a trace (a thread id no Java thread has). */
    private static final long COPY_TRACK_ID = 0x7fff_0000_0000_0000L;

    private record Delivery(long sequence, DeviceMemory slot, long bytes, long[] shape, BatchLayout layout, int[] labels,
                            List<ClipInfo> clips, GpuEvent ready) { }

    private record End(Throwable failure) { }

    private final Iterator<ClipBatch> source;
    private final GpuDevice device;
    private final TransferOptions options;
    private final TraceRecorder trace;
    private final GpuStream stream;
    private final List<DeviceMemory> slots = new ArrayList<>();
    private final BlockingQueue<DeviceMemory> freeSlots = new LinkedBlockingQueue<>();
    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
    private final Set<Delivery> delivered = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Object lock = new Object();
    private final CopyReleases releases;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong copiedBatches = new AtomicLong();
    private final AtomicLong copiedBytes = new AtomicLong();
    private final AtomicLong deviceCopyNanos = new AtomicLong();
    private final AtomicLong consumerWaits = new AtomicLong();
    private long lastCopyEndNanos;
    private Object next;

    private DeviceTransfer(Iterator<ClipBatch> source, GpuDevice device, long batchBytes, TransferOptions options,
                           TraceRecorder trace) {
        this.source = source;
        this.device = device;
        this.options = options;
        this.trace = trace;
        this.releases = new CopyReleases(this::copied);
        this.stream = device.createStream();
        try {
            for (int i = 0; i < options.prefetchDepth() + 1; i++) {
                DeviceMemory slot = device.allocate(batchBytes);
                slots.add(slot);
                freeSlots.add(slot);
            }
        } catch (RuntimeException e) {
            slots.forEach(DeviceMemory::close);
            stream.close();
            throw e;
        }
        this.thread = Thread.ofPlatform().name("stoker-gpu-transfer").daemon().unstarted(this::run);
    }

    /**
     * Starts copying batches of {@code source} to {@code device}. Every batch must fit {@code batchBytes}
     * (the loader's {@code BatchShape.batchBytes()}). The transfer closes each host batch once copied.
     */
    public static DeviceTransfer start(Iterator<ClipBatch> source, GpuDevice device, long batchBytes,
                                       TransferOptions options, TraceRecorder trace) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(options, "options");
        if (batchBytes < 1) {
            throw new IllegalArgumentException("batchBytes: " + batchBytes + " (expected: 1+)");
        }
        DeviceTransfer transfer = new DeviceTransfer(source, device, batchBytes, options, trace);
        transfer.thread.start();
        return transfer;
    }

    // ---- the transfer thread -------------------------------------------------------------------------

    private void run() {
        Throwable failure = null;
        try {
            long sequence = 0;
            while (!Thread.currentThread().isInterrupted()) {
                releases.releaseCompleted();
                DeviceMemory slot = freeSlots.poll();
                if (slot == null) {
                    // The consumer is behind: let the host buffers go before waiting for it.
                    releases.awaitAll();
                    slot = freeSlots.take();
                }
                while (releases.pending() >= COPIES_HOLDING_HOST) {
                    releases.awaitOldest();
                }
                boolean more;
                try {
                    more = source.hasNext();
                } catch (RuntimeException e) {
                    freeSlots.add(slot);
                    throw e;
                }
                if (!more) {
                    freeSlots.add(slot);
                    break;
                }
                copy(sequence++, source.next(), slot);
            }
        } catch (InterruptedException e) {
            // closing
        } catch (Throwable t) {
            failure = closed.get() ? null : t;
        } finally {
            // Copies still pending keep their host buffers until close(), which waits for the stream first:
            // waiting here could block an interrupted thread on a copy nothing else drives.
            ready.add(new End(failure));
        }
    }

    private void copy(long sequence, ClipBatch host, DeviceMemory slot) {
        GpuEvent started = null;
        GpuEvent copied = null;
        GpuEvent readyEvent = null;
        try {
            MemorySegment data = host.data();
            long bytes = data.byteSize();
            if (bytes > slot.byteSize()) {
                throw new IllegalArgumentException("batch " + sequence + ": " + bytes + " bytes (expected: at most "
                        + slot.byteSize() + ", the device buffer's size)");
            }
            long[] shape = host.shape();
            int[] labels = host.labels();
            List<ClipInfo> clips = host.clips();
            long enqueuedNanos = System.nanoTime();
            started = stream.record();
            stream.copyToDeviceAsync(data, slot.pointer());
            copied = stream.record();
            readyEvent = stream.record();
            if (trace != null) {
                trace.slice("enqueue H2D", "gpu", Thread.currentThread(), enqueuedNanos, System.nanoTime() - enqueuedNanos,
                        sequence, "batch " + sequence + ", " + megabytes(bytes));
            }
            releases.releaseAfter(new CopyReleases.Pending(sequence, started, copied, host, enqueuedNanos, bytes));
            ready.add(new Delivery(sequence, slot, bytes, shape, host.layout(), labels, clips, readyEvent));
        } catch (RuntimeException | Error e) {
            if (copied == null) {
                // Nothing queued reads the host buffer or the slot any more once the stream drains.
                stream.synchronize();
                host.close();
                freeSlots.add(slot);
                closeQuietly(started);
            } else if (readyEvent == null) {
                releases.releaseAfter(new CopyReleases.Pending(sequence, started, copied, host, System.nanoTime(), 0));
                releases.awaitAll();
                freeSlots.add(slot);
            }
            throw e;
        }
    }

    /** A copy completed and its host buffer went back: count it, and draw it on the copy stream's track. */
    private void copied(CopyReleases.Pending copy) {
        copiedBatches.incrementAndGet();
        copiedBytes.addAndGet(copy.bytes());
        double deviceMillis = copy.copied().elapsedMillisSince(copy.started());
        long now = System.nanoTime();
        long startNanos;
        long durationNanos;
        if (Double.isNaN(deviceMillis)) {
            startNanos = copy.enqueuedNanos();
            durationNanos = now - startNanos;
        } else {
            durationNanos = (long) (deviceMillis * 1e6);
            deviceCopyNanos.addAndGet(durationNanos);
            // Copies on one stream run back to back: this one started when it was queued or when the last ended.
            startNanos = Math.max(copy.enqueuedNanos(), lastCopyEndNanos);
        }
        lastCopyEndNanos = startNanos + durationNanos;
        if (trace != null) {
            String detail = "batch " + copy.sequence() + ", " + megabytes(copy.bytes())
                    + (Double.isNaN(deviceMillis) ? "" : String.format(Locale.ROOT, ", %.3f ms on the device, %.1f GB/s",
                    deviceMillis, copy.bytes() / (deviceMillis * 1e6)));
            trace.foreignSlice("H2D copy", "gpu", COPY_TRACK_ID, "gpu copy stream (" + device.id() + ")", startNanos,
                    durationNanos, copy.sequence(), detail);
        }
    }

    // ---- the consumer --------------------------------------------------------------------------------

    @Override
    public boolean hasNext() {
        if (next == null) {
            if (closed.get()) {
                return false;
            }
            next = Waits.await("the next device batch", ready::take);
        }
        if (next instanceof End end) {
            if (end.failure() != null) {
                Throwable f = end.failure();
                next = new End(null);
                throw f instanceof RuntimeException r ? r
                        : new IllegalStateException("the GPU transfer failed: " + f.getMessage(), f);
            }
            return false;
        }
        return true;
    }

    /** The next batch on the device; with {@link TransferOptions#awaitOnDelivery()} its copy has completed. */
    @Override
    public DeviceBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more device batches");
        }
        Delivery d = (Delivery) next;
        next = null;
        if (options.awaitOnDelivery() && !d.ready().isComplete()) {
            consumerWaits.incrementAndGet();
            long waitStart = System.nanoTime();
            d.ready().await();
            if (trace != null) {
                trace.slice("wait for H2D copy", "gpu", Thread.currentThread(), waitStart, System.nanoTime() - waitStart,
                        d.sequence(), "batch " + d.sequence());
            }
        }
        synchronized (lock) {
            delivered.add(d);
        }
        long deliveredNanos = System.nanoTime();
        AtomicBoolean released = new AtomicBoolean();
        AutoCloseable release = () -> {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            if (trace != null) {
                trace.slice("device batch in use", "gpu", Thread.currentThread(), deliveredNanos,
                        System.nanoTime() - deliveredNanos, d.sequence(), "batch " + d.sequence());
            }
            synchronized (lock) {
                if (delivered.remove(d)) {
                    d.ready().close();
                    freeSlots.add(d.slot());
                }
            }
        };
        return new DeviceBatch(d.sequence(), d.slot().pointer(), d.bytes(), d.shape(), d.layout(), d.labels(), d.clips(),
                stream.handle(), d.ready(), release);
    }

    // ---- counters ------------------------------------------------------------------------------------

    /**
     * The transfer's counters so far.
     *
     * @param copiedBatches   batches whose copy completed
     * @param copiedBytes     their bytes
     * @param deviceCopyNanos device time of the completed copies (0 where the device cannot time them)
     * @param consumerWaits   times {@link #next()} had to wait for a copy to finish: the copy was the bottleneck
     */
    public record Stats(long copiedBatches, long copiedBytes, long deviceCopyNanos, long consumerWaits) {
    }

    public Stats stats() {
        return new Stats(copiedBatches.get(), copiedBytes.get(), deviceCopyNanos.get(), consumerWaits.get());
    }

    /** Device buffers the stage holds: {@code prefetchDepth + 1}. */
    public int deviceBuffers() { return slots.size(); }

    public TransferOptions options() { return options; }

    /**
     * Stops the transfer thread, waits for every queued copy (their host buffers go back), and frees the
     * device buffers and the stream; batches still out become invalid. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            // Stuck in the source: leave the device memory alone rather than free it under a copy.
            System.getLogger("dev.stoker.gpu").log(System.Logger.Level.WARNING,
                    "stoker-gpu-transfer did not stop within 30 s; its device buffers are leaked");
            return;
        }
        stream.synchronize();
        releases.awaitAll(); // the thread has ended and every copy has run: their host buffers go back
        for (Object item; (item = ready.poll()) != null; ) {
            if (item instanceof Delivery d) {
                d.ready().close();
            }
        }
        if (next instanceof Delivery d) {
            d.ready().close();
        }
        next = new End(null);
        synchronized (lock) {
            delivered.forEach(d -> d.ready().close());
            delivered.clear();
        }
        slots.forEach(DeviceMemory::close);
        stream.close();
    }

    private static void closeQuietly(GpuEvent event) {
        if (event != null) {
            try {
                event.close();
            } catch (RuntimeException ignored) {
                // already failing
            }
        }
    }

    private static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.2f MB", bytes / 1e6);
    }
}
