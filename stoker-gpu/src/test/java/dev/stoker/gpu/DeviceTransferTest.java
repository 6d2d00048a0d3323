package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.pipeline.TraceRecorder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transfer stage against a fake device: order, bytes, how far copies run ahead of the consumer,
 * host buffers held until their copy completes, failures, cleanup and the trace.
 */
@Timeout(60)
class DeviceTransferTest {
    /** The longest a poll waits for a state: a hang guard far above any real time, under the class's timeout. */
    private static final long HANG_GUARD_NANOS = 30_000_000_000L;

    private static final BatchShape SHAPE = BatchShape.rgb(2, 2, 4, 4);

    private final List<ClipBatch> made = new CopyOnWriteArrayList<>();
    private FakeDevice device;
    private BatchPool hostPool;

    @AfterEach
    void closePool() {
        if (hostPool != null) {
            hostPool.close();
        }
    }

    /** {@code count} host batches, batch k's bytes all equal to k, clip labels 10k and 10k+1; made on demand. */
    private Iterator<ClipBatch> source(int count, int failAt) {
        hostPool = new BatchPool(SHAPE, 8 * SHAPE.batchBytes(), new PinnedMemory(device.hostAllocator()));
        return new Iterator<>() {
            int next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public ClipBatch next() {
                if (next >= count) {
                    throw new NoSuchElementException();
                }
                if (next == failAt) {
                    throw new IllegalStateException("decode failed on batch " + next);
                }
                try {
                    ClipBatch batch = hostPool.acquire();
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment clip = arena.allocate(SHAPE.clipBytes());
                        clip.fill((byte) next);
                        for (int slot = 0; slot < 2; slot++) {
                            BatchCollator.put(batch, slot, clip,
                                    new ClipInfo(Path.of("v" + next + ".mp4"), 10 * next + slot, new double[] {0, 0.1}, 2));
                        }
                    }
                    made.add(batch);
                    next++;
                    return batch;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Test
    void deliversEveryBatchInOrderWithItsBytesAndLabels() {
        device = new FakeDevice(true);
        List<Long> sequences = new ArrayList<>();
        try (DeviceTransfer transfer = DeviceTransfer.start(source(12, -1), device, SHAPE.batchBytes(),
                TransferOptions.defaults(), null)) {
            while (transfer.hasNext()) {
                try (DeviceBatch batch = transfer.next()) {
                    int k = (int) batch.sequence();
                    sequences.add(batch.sequence());
                    assertThat(batch.shape()).containsExactly(2, 2, 4, 4, 3);
                    assertThat(batch.labels()).containsExactly(10 * k, 10 * k + 1);
                    assertThat(batch.byteSize()).isEqualTo(SHAPE.batchBytes());
                    assertThat(batch.ready().isComplete()).isTrue();
                    MemorySegment onDevice = FakeDevice.deviceBytes(batch.devicePointer(), batch.byteSize());
                    for (long i = 0; i < batch.byteSize(); i++) {
                        if (onDevice.get(ValueLayout.JAVA_BYTE, i) != (byte) k) {
                            throw new AssertionError("batch " + k + ": byte " + i + " is " + onDevice.get(ValueLayout.JAVA_BYTE, i));
                        }
                    }
                }
            }
            assertThat(transfer.stats().copiedBatches()).isEqualTo(12);
            assertThat(transfer.stats().copiedBytes()).isEqualTo(12 * SHAPE.batchBytes());
        }
        assertThat(sequences).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
        assertThat(made).allMatch(ClipBatch::isClosed);
        assertThat(hostPool.buffersInUse()).isZero();
        assertThat(device.deviceMemory).as("device buffers freed").isEmpty();
        assertThat(device.liveEvents.get()).as("events destroyed").isZero();
        assertThat(device.stream().destroyed).isTrue();
    }

    @Test
    void copiesRunAheadOfTheConsumerByThePrefetchDepthOnly() throws InterruptedException {
        device = new FakeDevice(false);
        try (DeviceTransfer transfer = DeviceTransfer.start(source(20, -1), device, SHAPE.batchBytes(),
                TransferOptions.defaults().withPrefetchDepth(2), null)) {
            assertThat(transfer.deviceBuffers()).isEqualTo(3);
            settle(transfer);
            assertThat(device.copiesQueued.get()).as("depth 2 ahead + the consumer's buffer").isEqualTo(3);

            DeviceBatch first = transfer.next();
            settle(transfer);
            assertThat(device.copiesQueued.get()).as("no buffer free while the consumer holds batch 0").isEqualTo(3);

            first.close();
            settle(transfer);
            assertThat(device.copiesQueued.get()).as("batch 0's buffer now carries batch 3").isEqualTo(4);
            for (int k = 1; k <= 3; k++) {
                try (DeviceBatch b = transfer.next()) {
                    assertThat(b.sequence()).isEqualTo(k);
                }
            }
        }
    }

    @Test
    void aHostBufferIsHeldUntilItsCopyHasRun() throws InterruptedException {
        device = new FakeDevice(false);
        try (DeviceTransfer transfer = DeviceTransfer.start(source(5, -1), device, SHAPE.batchBytes(),
                TransferOptions.defaults().withAwaitOnDelivery(false), null)) {
            awaitUntil(() -> device.copiesQueued.get() == DeviceTransfer.COPIES_HOLDING_HOST);
            Thread.onSpinWait();
            assertThat(made).hasSize(DeviceTransfer.COPIES_HOLDING_HOST);
            assertThat(made).as("copies queued, none run: the device may still read them").noneMatch(ClipBatch::isClosed);

            DeviceBatch b0 = transfer.next();
            assertThat(b0.ready().isComplete()).as("awaitOnDelivery off: handed out before the copy").isFalse();
            device.stream().runAll();
            awaitUntil(() -> made.getFirst().isClosed());
            assertThat(b0.ready().isComplete()).isTrue();
            b0.close();
        }
        assertThat(made).allMatch(ClipBatch::isClosed);
    }

    @Test
    void aFailureInTheSourceReachesTheConsumerAfterTheBatchesBeforeIt() {
        device = new FakeDevice(true);
        List<Long> got = new ArrayList<>();
        try (DeviceTransfer transfer = DeviceTransfer.start(source(6, 3), device, SHAPE.batchBytes(),
                TransferOptions.defaults(), null)) {
            assertThatThrownBy(() -> {
                while (transfer.hasNext()) {
                    try (DeviceBatch b = transfer.next()) {
                        got.add(b.sequence());
                    }
                }
            }).isInstanceOf(IllegalStateException.class).hasMessage("decode failed on batch 3");
        }
        assertThat(got).containsExactly(0L, 1L, 2L);
        assertThat(hostPool.buffersInUse()).isZero();
        assertThat(device.deviceMemory).isEmpty();
    }

    @Test
    void closingMidwayReleasesHostAndDeviceMemoryEvenWithABatchStillOut() {
        device = new FakeDevice(true);
        DeviceTransfer transfer = DeviceTransfer.start(source(50, -1), device, SHAPE.batchBytes(),
                TransferOptions.defaults(), null);
        DeviceBatch kept = transfer.next();
        transfer.close();
        kept.close(); // after the stage closed: a no-op, not a double free
        assertThat(transfer.hasNext()).isFalse();
        assertThat(made).allMatch(ClipBatch::isClosed);
        assertThat(device.deviceMemory).isEmpty();
        assertThat(device.liveEvents.get()).isZero();
    }

    @Test
    void theTraceShowsEachCopyOnTheCopyStreamsTrackAndEachBatchInUse() {
        device = new FakeDevice(true);
        TraceRecorder trace = TraceRecorder.create();
        try (DeviceTransfer transfer = DeviceTransfer.start(source(4, -1), device, SHAPE.batchBytes(),
                TransferOptions.defaults(), trace)) {
            while (transfer.hasNext()) {
                transfer.next().close();
            }
        }
        List<TraceRecorder.Slice> slices = new ArrayList<>();
        trace.readSlices(0, slices::add);
        assertThat(slices).allMatch(s -> s.category().equals("gpu"));
        assertThat(slices).filteredOn(s -> s.name().equals("H2D copy")).hasSize(4)
                .allMatch(s -> s.threadName().equals("gpu copy stream (fake:0)"))
                .extracting(TraceRecorder.Slice::itemId).containsExactly(0L, 1L, 2L, 3L);
        assertThat(slices).filteredOn(s -> s.name().equals("device batch in use")).hasSize(4);
        assertThat(slices).filteredOn(s -> s.name().equals("enqueue H2D")).hasSize(4)
                .allMatch(s -> s.threadName().equals("stoker-gpu-transfer"));
    }

    @Test
    void underAnErraticDeviceAndConsumerNoHostBufferIsReusedBeforeItsCopyRan() throws InterruptedException {
        // Three host buffers for 300 batches: any buffer given back before its copy ran would be refilled
        // with a later batch's bytes before the fake copy reads it, and the device would see those.
        device = new FakeDevice(false);
        Iterator<ClipBatch> source = source(300, -1);
        hostPool.close();
        hostPool = new BatchPool(SHAPE, 3 * SHAPE.batchBytes(), new PinnedMemory(device.hostAllocator()));
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        DeviceTransfer transfer = DeviceTransfer.start(source, device, SHAPE.batchBytes(),
                TransferOptions.defaults().withPrefetchDepth(1 + random.nextInt(3)), null);
        // The fake device keeps running until the transfer has closed, as a real one would.
        Thread gpu = Thread.ofPlatform().name("fake-gpu").start(() -> {
            java.util.SplittableRandom r = new java.util.SplittableRandom(7);
            while (!done.get()) {
                if (r.nextInt(4) == 0) {
                    Thread.yield();
                } else {
                    device.stream().runNext();
                }
            }
        });
        try {
            try (transfer) {
                long expected = 0;
                while (transfer.hasNext()) {
                    try (DeviceBatch batch = transfer.next()) {
                        assertThat(batch.sequence()).isEqualTo(expected);
                        MemorySegment onDevice = FakeDevice.deviceBytes(batch.devicePointer(), batch.byteSize());
                        long firstWrong = -1;
                        for (long i = 0; i < batch.byteSize() && firstWrong < 0; i++) {
                            if (onDevice.get(ValueLayout.JAVA_BYTE, i) != (byte) expected) {
                                firstWrong = i;
                            }
                        }
                        assertThat(firstWrong).as("batch " + expected + ": first wrong byte").isEqualTo(-1);
                        if (random.nextInt(3) == 0) {
                            Thread.yield();
                        }
                    }
                    expected++;
                }
                assertThat(expected).isEqualTo(300);
            }
        } finally {
            done.set(true);
            gpu.join();
        }
        assertThat(hostPool.buffersInUse()).isZero();
        assertThat(hostPool.buffersCreated()).isLessThanOrEqualTo(3);
    }

    @Test
    void prefetchDepthMustBePositive() {
        assertThatThrownBy(() -> TransferOptions.defaults().withPrefetchDepth(0))
                .hasMessage("prefetchDepth: 0 (expected: 1+)");
    }

    /** Runs the fake stream until the transfer thread is parked with nothing left to run. */
    private void settle(DeviceTransfer transfer) throws InterruptedException {
        Thread worker = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("stoker-gpu-transfer") && t.isAlive()).findFirst().orElseThrow();
        int quiet = 0;
        long deadline = System.nanoTime() + HANG_GUARD_NANOS;
        while (quiet < 20) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("transfer thread never settled: " + worker.getState());
            }
            boolean ran = device.stream().runNext();
            Thread.State state = worker.getState();
            quiet = !ran && (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) ? quiet + 1 : 0;
            Thread.sleep(1);
        }
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + HANG_GUARD_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within the hang guard");
            }
            Thread.sleep(1);
        }
    }
}
