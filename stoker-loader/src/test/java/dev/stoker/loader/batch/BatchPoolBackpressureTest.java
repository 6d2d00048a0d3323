package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BatchPoolBackpressureTest {

    private static final BatchShape SHAPE = BatchShape.rgb(1, 2, 4, 4);

    @Test
    void acquireBlocksUntilABatchIsClosed() throws Exception {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes());
             ExecutorService executor = Executors.newSingleThreadExecutor()) {
            ClipBatch held = pool.acquire();
            CountDownLatch started = new CountDownLatch(1);
            Future<ClipBatch> waiter = executor.submit(() -> {
                started.countDown();
                return pool.acquire();
            });
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            // Proves only "not yet": the release below is what must let it through.
            assertThatThrownBy(() -> waiter.get(100, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            held.close();
            ClipBatch next = waiter.get(5, TimeUnit.SECONDS);
            assertThat(pool.waits()).isEqualTo(1);
            assertThat(pool.buffersCreated()).isEqualTo(1);
            next.close();
        }
    }

    @Test
    void blockedAcquireIsInterruptible() throws Exception {
        try (BatchPool pool = new BatchPool(SHAPE, 0)) {
            ClipBatch held = pool.acquire();
            CompletableFuture<Thread> waiting = new CompletableFuture<>();
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread thread = Thread.ofPlatform().start(() -> {
                waiting.complete(Thread.currentThread());
                try {
                    pool.acquire().close();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            });
            waiting.get(5, TimeUnit.SECONDS).interrupt();
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            thread.join(5_000);
            held.close();
            assertThat(pool.buffersInUse()).isZero();
        }
    }

    @Test
    void closingThePoolReleasesWaiters() throws Exception {
        BatchPool pool = new BatchPool(SHAPE, 0);
        ClipBatch held = pool.acquire();
        try (ExecutorService executor = Executors.newSingleThreadExecutor()) {
            Future<ClipBatch> waiter = executor.submit(pool::acquire);
            assertThatThrownBy(() -> waiter.get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            pool.close();
            assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
        held.close();
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
