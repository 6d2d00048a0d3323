package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.tune.internal.BatchCache;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * With pooled batches (a loader that reuses its buffers once a batch is closed), Headspace replays its
 * own copies, releases every loader batch right after its step and every copy at the end, also when the
 * step fails.
 */
class HeadspacePooledBatchCacheTest {

    /** A batch whose buffer goes back to a two-buffer pool on close, and is overwritten by the next batch. */
    static final class PooledBatch implements AutoCloseable {
        final byte[] buffer;
        final boolean pooled;
        boolean closed;
        int closes;

        PooledBatch(byte[] buffer, boolean pooled) {
            this.buffer = buffer;
            this.pooled = pooled;
        }

        int value() {
            if (closed) {
                throw new IllegalStateException("batch used after close");
            }
            return buffer[0];
        }

        PooledBatch copy() {
            return new PooledBatch(buffer.clone(), false);
        }

        @Override
        public void close() {
            closed = true;
            closes++;
        }
    }

    /** Hands out batches 0, 1, 2... in two recycled buffers; a buffer still lent out is an error. */
    static final class PooledLoader implements java.util.Iterator<PooledBatch> {
        final byte[][] buffers = {new byte[16], new byte[16]};
        final List<PooledBatch> handedOut = new ArrayList<>();
        int next;

        @Override
        public boolean hasNext() { return true; }

        @Override
        public PooledBatch next() {
            byte[] buffer = buffers[next % 2];
            handedOut.stream().filter(b -> b.buffer == buffer && !b.closed).findAny().ifPresent(b -> {
                throw new IllegalStateException("pool exhausted: a batch was not closed");
            });
            Arrays.fill(buffer, (byte) next++);
            PooledBatch b = new PooledBatch(buffer, true);
            handedOut.add(b);
            return b;
        }
    }

    @Test
    void theCachedPhaseReplaysCopiesOfTheFirstBatchesAndEveryBatchIsClosedOnce() {
        PooledLoader loader = new PooledLoader();
        List<Integer> seen = new ArrayList<>();
        List<PooledBatch> copies = new ArrayList<>();
        HeadspaceResult r = Headspace.<PooledBatch, PooledBatch>of(b -> seen.add(b.value()), BatchCache.closing(b -> {
                    PooledBatch c = b.copy();
                    copies.add(c);
                    return c;
                }))
                .warmupSteps(1).measuredSteps(4).cachedBatches(3).run(loader);

        // batches 0..2 are cached; 3..7 run with the loader; then the copies of 0, 1, 2 in turn
        assertThat(seen).containsExactly(3, 4, 5, 6, 7, 0, 1, 2, 0, 1);
        assertThat(loader.handedOut).hasSize(8).allSatisfy(b -> assertThat(b.closes).isEqualTo(1));
        assertThat(copies).hasSize(3).allSatisfy(c -> assertThat(c.closes).isEqualTo(1));
        assertThat(r.stepsMeasured()).isEqualTo(4);
        assertThat(r.loaderVerdict()).isNull();
    }

    @Test
    void aFailingStepStillReleasesTheBatchAndTheCopies() {
        PooledLoader loader = new PooledLoader();
        List<PooledBatch> copies = new ArrayList<>();
        AtomicInteger steps = new AtomicInteger();
        Headspace<PooledBatch, PooledBatch> headspace = Headspace.<PooledBatch, PooledBatch>of(b -> {
            if (steps.incrementAndGet() == 2) {
                throw new java.io.IOException("out of GPU memory");
            }
        }, BatchCache.closing(b -> {
            PooledBatch c = b.copy();
            copies.add(c);
            return c;
        })).warmupSteps(0).measuredSteps(5).cachedBatches(2);

        assertThatThrownBy(() -> headspace.run(loader))
                .hasMessage("training step 1 (loader phase) failed: out of GPU memory");
        assertThat(loader.handedOut).hasSize(4).allSatisfy(b -> assertThat(b.closed).isTrue());
        assertThat(copies).hasSize(2).allSatisfy(c -> assertThat(c.closed).isTrue());
    }
}
