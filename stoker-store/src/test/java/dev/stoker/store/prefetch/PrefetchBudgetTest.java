package dev.stoker.store.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.store.prefetch.internal.PrefetchReader;
import dev.stoker.store.prefetch.internal.Prefetcher;
import dev.stoker.pipeline.ThreadStates;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PrefetchBudgetTest {

    /** Items of known, varied sizes; counts the bytes alive between read and take, independently of the prefetcher. */
    static final class SizedReader implements PrefetchReader<Integer, byte[]> {
        final int[] sizes;
        final AtomicLong aliveBytes = new AtomicLong();
        final AtomicLong peakAliveBytes = new AtomicLong();
        final AtomicLong reads = new AtomicLong();
        final long readNanos;

        SizedReader(int[] sizes, long readNanos) {
            this.sizes = sizes;
            this.readNanos = readNanos;
        }

        @Override
        public long sizeBytes(Integer key) {
            return sizes[key];
        }

        @Override
        public byte[] read(Integer key) throws IOException {
            reads.incrementAndGet();
            byte[] bytes = new byte[sizes[key]];
            long alive = aliveBytes.addAndGet(bytes.length);
            peakAliveBytes.accumulateAndGet(alive, Math::max);
            if (readNanos > 0) {
                try {
                    Thread.sleep(readNanos / 1_000_000, (int) (readNanos % 1_000_000));
                } catch (InterruptedException e) {
                    aliveBytes.addAndGet(-bytes.length);
                    throw new java.io.InterruptedIOException("interrupted");
                }
            }
            return bytes;
        }

        @Override
        public long byteSize(byte[] value) {
            return value.length;
        }

        @Override
        public void release(byte[] value) {
            aliveBytes.addAndGet(-value.length);
        }

        /** The consumer is done with an item it took. */
        void consumed(byte[] value) {
            aliveBytes.addAndGet(-value.length);
        }
    }

    private static int[] randomSizes(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return IntStream.range(0, n).map(i -> 1_000 + random.nextInt(60_000)).toArray();
    }

    @RepeatedTest(5)
    void heldBytesNeverExceedTheBudgetWithConcurrentTakers(RepetitionInfo repetition) throws Exception {
        int n = 400;
        int[] sizes = randomSizes(n, repetition.getCurrentRepetition());   // the same sizes every run: a failure repeats
        long budget = 200_000;
        SizedReader reader = new SizedReader(sizes, 200_000);
        List<Integer> order = IntStream.range(0, n).boxed().toList();
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(order.iterator(), reader, 16, budget);
             ExecutorService takers = Executors.newFixedThreadPool(4)) {
            // 4 takers over one shared, in-order cursor, like a fetch stage with concurrency 4.
            AtomicLong cursor = new AtomicLong();
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(takers.submit(() -> {
                    for (long i; (i = cursor.getAndIncrement()) < n; ) {
                        byte[] item = ahead.take((int) i);
                        assertThat(item).hasSize(sizes[(int) i]);
                        PrefetchStats s = ahead.stats();
                        assertThat(s.heldBytes()).isLessThanOrEqualTo(budget);
                        reader.consumed(item);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            PrefetchStats stats = ahead.stats();
            assertThat(stats.peakHeldBytes()).isLessThanOrEqualTo(budget).isPositive();
            assertThat(stats.requests()).isEqualTo(n);
            assertThat(stats.hits() + stats.misses()).isEqualTo(n);
            assertThat(stats.heldItems()).isZero();
            assertThat(stats.heldBytes()).isZero();
        }
        // What the reader saw alive at once (read ahead or being consumed by the 4 takers) stays within
        // the budget plus what the takers hold.
        assertThat(reader.peakAliveBytes.get()).isLessThanOrEqualTo(budget + 4L * 61_000);
        assertThat(reader.aliveBytes.get()).isZero();
    }

    @Test
    void aSlowConsumerGetsEveryItemFromPrefetchedData() throws Exception {
        int n = 50;
        int[] sizes = IntStream.range(0, n).map(i -> 10_000).toArray();
        SizedReader reader = new SizedReader(sizes, 0);
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(IntStream.range(0, n).boxed().iterator(), reader, 4, 1_000_000)) {
            for (int i = 0; i < n; i++) {
                waitUntilRead(ahead, Math.min(n, i + 4), 10_000);
                reader.consumed(ahead.take(i));
            }
            PrefetchStats stats = ahead.stats();
            assertThat(stats.hits()).isEqualTo(n);
            assertThat(stats.waits()).isZero();
            assertThat(stats.misses()).isZero();
            assertThat(stats.hitRate()).isEqualTo(1.0);
            assertThat(stats.bytesRead()).isEqualTo(n * 10_000L);
            assertThat(reader.reads.get()).isEqualTo(n);
        }
    }

    /**
     * Waits until the prefetcher has finished reading the first {@code reads} items: a read is counted in its bytes
     * once its entry is done, under the prefetcher's lock (polled, with the class's timeout as the hang guard).
     */
    private static void waitUntilRead(Prefetcher<?, ?> ahead, long reads, long bytesEach) throws InterruptedException {
        while (ahead.stats().bytesRead() < reads * bytesEach) {
            Thread.sleep(1);   // a poll, not a wait for time to pass
        }
    }

    @Test
    void keysOffTheSequenceAreMissesReadOnDemand() throws Exception {
        int[] sizes = IntStream.range(0, 20).map(i -> 100).toArray();
        SizedReader reader = new SizedReader(sizes, 0);
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(IntStream.range(0, 10).boxed().iterator(), reader, 4, 10_000)) {
            reader.consumed(ahead.take(0));
            reader.consumed(ahead.take(15)); // never in the sequence
            reader.consumed(ahead.take(1));
            PrefetchStats stats = ahead.stats();
            assertThat(stats.requests()).isEqualTo(3);
            assertThat(stats.hits()).isEqualTo(2);
            assertThat(stats.misses()).isEqualTo(1);
            assertThat(stats.hitRate()).isEqualTo(2.0 / 3);
        }
    }

    @Test
    void anItemLargerThanTheWholeBudgetIsLeftToTheConsumerAndTheRestFlows() throws Exception {
        int[] sizes = {100, 5_000, 100, 100};
        SizedReader reader = new SizedReader(sizes, 0);
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(IntStream.range(0, 4).boxed().iterator(), reader, 4, 1_000)) {
            for (int i = 0; i < 4; i++) {
                assertThat(ahead.take(i)).hasSize(sizes[i]);
            }
            PrefetchStats stats = ahead.stats();
            assertThat(stats.tooLarge()).isEqualTo(1);
            assertThat(stats.misses()).isEqualTo(1);
            assertThat(stats.hits()).isEqualTo(3);
            assertThat(stats.peakHeldBytes()).isLessThanOrEqualTo(1_000);
        }
    }

    @Test
    void aReadLargerThanAnnouncedFailsInsteadOfOverrunningTheBudget() throws Exception {
        PrefetchReader<Integer, byte[]> liar = new PrefetchReader<>() {
            @Override
            public long sizeBytes(Integer key) {
                return 10;
            }

            @Override
            public byte[] read(Integer key) {
                return new byte[100];
            }

            @Override
            public long byteSize(byte[] value) {
                return value.length;
            }
        };
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(List.of(0).iterator(), liar, 4, 50)) {
            assertThatThrownBy(() -> ahead.take(0)).isInstanceOf(IOException.class)
                    .hasMessageContaining("read 100 bytes (expected: at most the 10 announced by sizeBytes)");
        }
    }

    @Test
    void closeInterruptsReadsInFlightAndWakesWaitingTakers() throws Exception {
        // The read blocks until interrupted: a close that did not interrupt it would hang (the class's timeout).
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        PrefetchReader<Integer, byte[]> stuck = new PrefetchReader<>() {
            @Override
            public long sizeBytes(Integer key) {
                return 1;
            }

            @Override
            public byte[] read(Integer key) throws IOException {
                reading.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException("interrupted");
                }
                return new byte[1];
            }

            @Override
            public long byteSize(byte[] value) {
                return value.length;
            }
        };
        Prefetcher<Integer, byte[]> ahead = Prefetcher.start(List.of(0, 1).iterator(), stuck, 4, 100);
        reading.await();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread taker = Thread.ofVirtual().start(() -> {
            try {
                ahead.take(0);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        // The taker waits for the read in flight (its state says so: no sleep), then close wakes it.
        assertThat(ThreadStates.awaitBlockedIn(taker, "Prefetcher.take")).as("the taker waits for the read").isTrue();
        ahead.close();
        taker.join();
        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessage("prefetcher closed");
        assertThat(ahead.stats().heldItems()).isZero();
        assertThatThrownBy(() -> ahead.take(1)).hasMessage("prefetcher closed");
    }

    @Test
    void theDefaultBudgetIsAModestShareOfMemory() {
        long budget = Prefetcher.defaultBudgetBytes();
        assertThat(budget).isPositive().isLessThanOrEqualTo(1L << 30);
    }
}
