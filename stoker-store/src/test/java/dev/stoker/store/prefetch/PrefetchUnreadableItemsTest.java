package dev.stoker.store.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.store.prefetch.internal.PrefetchReader;
import dev.stoker.store.prefetch.internal.Prefetcher;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Items the prefetcher cannot read ahead (unsizable: a damaged record; larger than the budget) along an endless
 * sequence: starting and taking end, each such item is read on demand by its taker (whose read reports the damage),
 * and the readable ones around them are still read ahead. The endless sequence is what a sampler's endless run gives;
 * skipping such items without bound spun the prefetcher forever when none was readable.
 */
class PrefetchUnreadableItemsTest {
    /** A hang guard only: a regression spins forever, which {@code @Timeout} cannot interrupt. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);

    /** Items of 100 bytes, those {@code damaged} says failing both their size and their read. */
    static final class DamagedReader implements PrefetchReader<Integer, byte[]> {
        final IntPredicate damaged;
        final AtomicLong sizings = new AtomicLong();

        DamagedReader(IntPredicate damaged) {
            this.damaged = damaged;
        }

        @Override
        public long sizeBytes(Integer key) throws IOException {
            sizings.incrementAndGet();
            if (damaged.test(key)) {
                throw new IOException("record " + key + ": truncated");
            }
            return 100;
        }

        @Override
        public byte[] read(Integer key) throws IOException {
            if (damaged.test(key)) {
                throw new IOException("record " + key + ": truncated");
            }
            return new byte[100];
        }

        @Override
        public long byteSize(byte[] value) {
            return value.length;
        }
    }

    private static Iterator<Integer> endless() {
        return IntStream.iterate(0, i -> i + 1).boxed().iterator();
    }

    @Test
    void noReadableItemInAnEndlessSequenceEndsEachTakeWithTheReadsFailure() {
        DamagedReader reader = new DamagedReader(i -> true);
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(endless(), reader, 4, 10_000)) {
                for (int i = 0; i < 10; i++) {
                    int key = i;
                    assertThatThrownBy(() -> ahead.take(key)).isInstanceOf(IOException.class)
                            .hasMessageContaining("record " + key + ": truncated");
                }
                PrefetchStats stats = ahead.stats();
                assertThat(stats.misses()).isEqualTo(10);
                assertThat(stats.hits()).isZero();
                assertThat(stats.heldItems()).isZero();
                assertThat(stats.heldBytes()).isZero();
            }
        });
        // sized at most the lookahead past what was taken: the prefetcher keeps its window, not more
        assertThat(reader.sizings.get()).isLessThanOrEqualTo(10 + 4);
    }

    @Test
    void noItemWithinTheBudgetInAnEndlessSequenceEndsEachTakeWithAnOnDemandRead() {
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(endless(), new DamagedReader(i -> false), 4, 50)) {
                for (int i = 0; i < 10; i++) {
                    assertThat(ahead.take(i)).hasSize(100);
                }
                PrefetchStats stats = ahead.stats();
                assertThat(stats.misses()).isEqualTo(10);
                assertThat(stats.tooLarge()).isBetween(10L, 10L + 4);
                assertThat(stats.peakHeldBytes()).isZero();
            }
        });
    }

    @Test
    void readableItemsAmongDamagedOnesAreStillReadAhead() {
        DamagedReader reader = new DamagedReader(i -> i % 3 == 1);
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(endless(), reader, 4, 10_000)) {
                for (int i = 0; i < 30; i++) {
                    int key = i;
                    if (reader.damaged.test(i)) {
                        assertThatThrownBy(() -> ahead.take(key)).isInstanceOf(IOException.class)
                                .hasMessageContaining("record " + key);
                    } else {
                        assertThat(ahead.take(key)).hasSize(100);
                    }
                }
                PrefetchStats stats = ahead.stats();
                assertThat(stats.hits()).isEqualTo(20);
                assertThat(stats.misses()).isEqualTo(10);
                assertThat(stats.dropped()).isZero();
            }
        });
    }
}
