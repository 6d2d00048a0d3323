package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BatchLeakDetectionTest {

    private static final BatchShape SHAPE = BatchShape.rgb(1, 2, 4, 4);

    @Test
    void droppedBatchIsReportedAndItsBufferReclaimed() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes(), LeakDetection.PARANOID)) {
            acquireAndDrop(pool);
            assertThat(pool.buffersInUse()).isEqualTo(1);

            // tryAcquire waits on the pool's release signal, which the Cleaner's reclaim sends.
            ClipBatch next = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (next == null && System.nanoTime() < deadline) {
                System.gc();
                next = pool.tryAcquire(50, TimeUnit.MILLISECONDS);
            }
            assertThat(next).as("buffer reclaimed from the dropped batch").isNotNull();
            next.close();
            assertThat(pool.leaksDetected()).isEqualTo(1);
            assertThat(pool.buffersCreated()).isEqualTo(1);
            assertThat(pool.buffersInUse()).isZero();
        }
    }

    @Test
    void closedBatchesAreNotReportedAsLeaks() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes(), LeakDetection.PARANOID)) {
            for (int i = 0; i < 50; i++) {
                pool.acquire().close();
            }
            System.gc();
            assertThat(pool.leaksDetected()).isZero();
        }
    }

    private static void acquireAndDrop(BatchPool pool) throws InterruptedException {
        ClipBatch batch = pool.acquire();
        assertThat(batch.clipCount()).isZero();
    }
}
