package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pinned batch pool's bookkeeping, without a device: a {@link BatchPool} over {@link PinnedMemory}
 * keeps the byte budget and reuses buffers; {@link CopyReleases} gives a buffer back only once the event
 * behind its copy has completed (fake events that complete when the test runs the fake stream).
 */
@Timeout(20)
class PinnedBatchPoolTest {
    private static final BatchShape SHAPE = BatchShape.rgb(2, 2, 8, 8);

    private final FakeDevice device = new FakeDevice(false);
    private final PinnedMemory memory = new PinnedMemory(device.hostAllocator());

    @Test
    void theBudgetCapsHowMuchPinnedMemoryIsAllocated() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, 3 * SHAPE.batchBytes() + 1, memory)) {
            List<ClipBatch> out = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                out.add(pool.acquire());
            }
            assertThat(pool.tryAcquire(20, TimeUnit.MILLISECONDS)).as("a fourth buffer would exceed the budget").isNull();
            assertThat(memory.buffers()).isEqualTo(3);
            assertThat(memory.bytesAllocated()).isEqualTo(3 * SHAPE.batchBytes());
            assertThat(device.host.liveBuffers()).isEqualTo(3);
            out.forEach(ClipBatch::close);
        }
        assertThat(device.host.liveBuffers()).as("closing the pool frees every pinned buffer").isZero();
    }

    @Test
    void aReturnedBufferIsReusedNotReallocated() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, 4 * SHAPE.batchBytes(), memory)) {
            long first;
            try (ClipBatch batch = pool.acquire()) {
                first = BatchCollator.slot(batch, 0).address();
            }
            for (int i = 0; i < 5; i++) {
                try (ClipBatch batch = pool.acquire()) {
                    assertThat(BatchCollator.slot(batch, 0).address()).isEqualTo(first);
                }
            }
            assertThat(memory.buffers()).isEqualTo(1);
        }
    }

    @Test
    void aBufferGoesBackOnlyAfterItsCopyCompleted() throws InterruptedException {
        List<Long> released = new ArrayList<>();
        CopyReleases releases = new CopyReleases(copy -> released.add(copy.sequence()));
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes(), memory)) {
            FakeDevice.FakeStream stream = (FakeDevice.FakeStream) device.createStream();
            ClipBatch batch = pool.acquire();
            GpuEvent started = stream.record();
            stream.copyToDeviceAsync(BatchCollator.slot(batch, 0), device.allocate(SHAPE.batchBytes()).pointer());
            GpuEvent copied = stream.record();
            releases.releaseAfter(new CopyReleases.Pending(0, started, copied, batch, System.nanoTime(), SHAPE.clipBytes()));

            assertThat(releases.releaseCompleted()).as("the copy has not run").isZero();
            assertThat(batch.isClosed()).isFalse();
            assertThat(pool.tryAcquire(20, TimeUnit.MILLISECONDS)).as("the only buffer is under a copy").isNull();

            stream.runNext(); // the start event
            assertThat(releases.releaseCompleted()).as("started is not copied").isZero();
            stream.runAll();
            assertThat(releases.releaseCompleted()).isEqualTo(1);
            assertThat(batch.isClosed()).isTrue();
            assertThat(released).containsExactly(0L);
            assertThat(device.liveEvents.get()).as("both events destroyed with the release").isZero();
            try (ClipBatch again = pool.tryAcquire(1, TimeUnit.SECONDS)) {
                assertThat(again).isNotNull();
            }
        }
    }

    @Test
    void releasesFollowCopyOrderAndStopAtTheFirstRunningCopy() throws InterruptedException {
        List<Long> released = new ArrayList<>();
        CopyReleases releases = new CopyReleases(copy -> released.add(copy.sequence()));
        FakeDevice.FakeStream stream = (FakeDevice.FakeStream) device.createStream();
        List<FakeDevice.FakeEvent> copiedEvents = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            GpuEvent started = stream.record();
            FakeDevice.FakeEvent copied = (FakeDevice.FakeEvent) stream.record();
            copiedEvents.add(copied);
            releases.releaseAfter(new CopyReleases.Pending(i, started, copied, () -> { }, 0, 0));
        }
        copiedEvents.get(2).complete(); // out of order: must not jump the queue
        assertThat(releases.releaseCompleted()).isZero();
        stream.runNext();
        stream.runNext();
        assertThat(releases.releaseCompleted()).isEqualTo(1);
        stream.runAll();
        assertThat(releases.releaseCompleted()).isEqualTo(2);
        assertThat(released).containsExactly(0L, 1L, 2L);
        assertThat(releases.pending()).isZero();
    }

    @Test
    void awaitOldestBlocksUntilTheDeviceGetsThere() throws InterruptedException {
        CopyReleases releases = new CopyReleases(copy -> { });
        FakeDevice.FakeStream stream = (FakeDevice.FakeStream) device.createStream();
        boolean[] closed = new boolean[1];
        releases.releaseAfter(new CopyReleases.Pending(0, stream.record(), stream.record(), () -> closed[0] = true, 0, 0));
        Thread waiter = Thread.ofPlatform().start(releases::awaitOldest);
        // Seen waiting in awaitOldest (its state and stack, polled; the class's timeout is the hang guard), not slept on.
        while (!waitingIn(waiter, "awaitOldest")) {
            assertThat(waiter.isAlive()).as("awaitOldest returned before the copy ran").isTrue();
            Thread.sleep(1);   // a poll
        }
        assertThat(closed[0]).isFalse();
        stream.runAll();
        waiter.join();
        assertThat(closed[0]).isTrue();
    }

    private static boolean waitingIn(Thread thread, String method) {
        Thread.State state = thread.getState();
        return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                && java.util.Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
    }
}
