package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BatchPoolReuseTest {

    private static final BatchShape SHAPE = BatchShape.rgb(2, 4, 8, 8);

    @Test
    void sameBuffersComeBackAndNoneAreAllocatedAfterWarmUp() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes() * 3, LeakDetection.SIMPLE)) {
            Set<Long> addresses = new HashSet<>();
            for (int round = 0; round < 100; round++) {
                ClipBatch a = pool.acquire();
                ClipBatch b = pool.acquire();
                addresses.add(addressOf(a));
                addresses.add(addressOf(b));
                assertThat(pool.buffersInUse()).isEqualTo(2);
                a.close();
                b.close();
            }
            assertThat(addresses).hasSize(2);
            assertThat(pool.buffersCreated()).isEqualTo(2);
            assertThat(pool.buffersInUse()).isZero();
            assertThat(pool.acquires()).isEqualTo(200);
            assertThat(pool.waits()).isZero();
            assertThat(pool.leaksDetected()).isZero();
        }
    }

    @Test
    void budgetBoundsBufferCountButAllowsOne() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes() * 3 + 17)) {
            assertThat(pool.maxBuffers()).isEqualTo(3);
            ClipBatch[] batches = {pool.acquire(), pool.acquire(), pool.acquire()};
            assertThat(pool.buffersCreated()).isEqualTo(3);
            assertThat(pool.tryAcquire(0, java.util.concurrent.TimeUnit.SECONDS)).isNull();
            for (ClipBatch batch : batches) {
                batch.close();
            }
        }
        try (BatchPool tiny = new BatchPool(SHAPE, 1)) {
            assertThat(tiny.maxBuffers()).isEqualTo(1);
            tiny.acquire().close();
        }
        assertThatThrownBy(() -> new BatchPool(SHAPE, -1)).hasMessage("budgetBytes: -1 (expected: 0+)");
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseFails() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes())) {
            ClipBatch batch = pool.acquire();
            BatchCollator.put(batch, 0, MemorySegment.ofArray(new byte[(int) SHAPE.clipBytes()]),
                    new ClipInfo(Path.of("a.mp4"), 1, new double[] {0.0}, 3));
            MemorySegment data = batch.data();
            batch.close();
            batch.close();
            assertThat(pool.buffersInUse()).isZero();
            assertThat(batch.isClosed()).isTrue();
            assertThatThrownBy(batch::data).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(batch::labels).isInstanceOf(IllegalStateException.class);
            // The view handed out earlier dies with the batch: it cannot read the next user's pixels.
            assertThatThrownBy(() -> data.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            pool.acquire().close();
            assertThat(pool.buffersCreated()).isEqualTo(1);
        }
    }

    @Test
    void closingThePoolInvalidatesBatchesStillOut() throws InterruptedException {
        BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes());
        ClipBatch batch = pool.acquire();
        MemorySegment slot = BatchCollator.slot(batch, 0);
        pool.close();
        assertThatThrownBy(() -> slot.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        batch.close();
        assertThatThrownBy(pool::acquire).isInstanceOf(IllegalStateException.class).hasMessage("BatchPool is closed");
    }

    private static long addressOf(ClipBatch batch) {
        return BatchCollator.slot(batch, 0).address();
    }
}
