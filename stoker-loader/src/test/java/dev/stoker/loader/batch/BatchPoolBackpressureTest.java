package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.pipeline.ThreadStates;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BatchPoolBackpressureTest {

    private static final BatchShape SHAPE = BatchShape.rgb(1, 2, 4, 4);

    /**
     * {@code held}, the only batch of a pool of one, and a second {@code pool.acquire()} on thread {@code waiter},
     * blocked until a batch comes back; what that acquire gets, or throws, completes {@code outcome}.
     */
    private record BlockedAcquire(ClipBatch held, Thread waiter, CompletableFuture<ClipBatch> outcome) {
        static BlockedAcquire on(BatchPool pool) throws InterruptedException {
            ClipBatch held = pool.acquire();
            CompletableFuture<ClipBatch> outcome = new CompletableFuture<>();
            Thread waiter = Thread.ofPlatform().name("acquirer").start(() -> {
                try {
                    outcome.complete(pool.acquire());
                } catch (Throwable t) {
                    outcome.completeExceptionally(t);
                }
            });
            assertThat(ThreadStates.awaitBlockedIn(waiter, "BatchPool.acquire")).as("the second acquire waits").isTrue();
            return new BlockedAcquire(held, waiter, outcome);
        }
    }

    @Test
    void acquireBlocksUntilABatchIsClosed() throws Exception {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes())) {
            BlockedAcquire blocked = BlockedAcquire.on(pool);
            blocked.held().close();
            ClipBatch next = blocked.outcome().get(60, TimeUnit.SECONDS);   // a hang guard
            assertThat(pool.waits()).isEqualTo(1);
            assertThat(pool.buffersCreated()).isEqualTo(1);
            next.close();
        }
    }

    @Test
    void blockedAcquireIsInterruptible() throws Exception {
        try (BatchPool pool = new BatchPool(SHAPE, 0)) {
            BlockedAcquire blocked = BlockedAcquire.on(pool);
            blocked.waiter().interrupt();
            assertThatThrownBy(() -> blocked.outcome().get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            blocked.waiter().join();
            blocked.held().close();
            assertThat(pool.buffersInUse()).isZero();
        }
    }

    @Test
    void closingThePoolReleasesWaiters() throws Exception {
        BatchPool pool = new BatchPool(SHAPE, 0);
        BlockedAcquire blocked = BlockedAcquire.on(pool);
        pool.close();
        assertThatThrownBy(() -> blocked.outcome().get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        blocked.held().close();
    }

    @Test
    void manyThreadsNeverExceedTheBudget() throws Exception {
        int threads = 8;
        int rounds = 2_000;
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes() * 3);
             ExecutorService executor = Executors.newFixedThreadPool(threads)) {
            AtomicInteger out = new AtomicInteger();
            AtomicInteger maxOut = new AtomicInteger();
            Future<?>[] futures = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                futures[t] = executor.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (ClipBatch batch = pool.acquire()) {
                            maxOut.accumulateAndGet(out.incrementAndGet(), Math::max);
                            batch.batchShape();
                            out.decrementAndGet();
                        }
                    }
                    return null;
                });
            }
            for (Future<?> future : futures) {
                future.get(30, TimeUnit.SECONDS);
            }
            assertThat(maxOut.get()).isLessThanOrEqualTo(3);
            assertThat(pool.buffersCreated()).isLessThanOrEqualTo(3);
            assertThat(pool.buffersInUse()).isZero();
            assertThat(pool.acquires()).isEqualTo((long) threads * rounds);
        }
    }
}
