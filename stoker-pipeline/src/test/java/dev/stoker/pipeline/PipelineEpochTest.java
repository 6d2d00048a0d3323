package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineEpochTest {
    /** Epoch e holds 100 items: e*1000 .. e*1000+99. */
    private static final EpochSource<Integer> THREE_EPOCHS =
            e -> e < 3 ? IntStream.range(e * 1000, e * 1000 + 100).boxed().toList() : null;

    private static int jitter(int x) {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(0, 100_000));
        return x;
    }

    @Test
    void nextEpochYieldsExactlyOneEpochEvenWithUnorderedConcurrentStages() {
        try (Pipeline<Integer> p = Pipeline.fromEpochs(THREE_EPOCHS)
                .map("a", PipelineEpochTest::jitter, s -> s.concurrency(4))
                .flatMap("b", (Integer x) -> List.of(x), s -> s.concurrency(3))
                .build()) {
            for (int e = 0; e < 3; e++) {
                List<Integer> epoch = new ArrayList<>();
                p.nextEpoch().forEach(epoch::add);
                int base = e * 1000;
                assertThat(epoch).hasSize(100).allMatch(x -> x >= base && x < base + 100);
                assertThat(p.epoch()).isEqualTo(e);
            }
            assertThat(p.nextEpoch()).isEmpty();
            assertThat(p.hasMoreEpochs()).isFalse();
        }
    }

    @Test
    void batchesNeverSpanAnEpochBoundary() {
        try (Pipeline<List<Integer>> p = Pipeline.fromEpochs(THREE_EPOCHS)
                .map("a", x -> x, s -> s.concurrency(2))
                .batch(32)
                .build()) {
            List<List<Integer>> batches = new ArrayList<>();
            p.forEach(batches::add);
            assertThat(batches).hasSize(12); // 32+32+32+4 per epoch
            for (List<Integer> b : batches) {
                int epoch = b.getFirst() / 1000;
                assertThat(b).allMatch(x -> x / 1000 == epoch);
            }
        }
    }

    @Test
    void dropLastDropsThePartialBatchOfEachEpoch() {
        try (Pipeline<List<Integer>> p = Pipeline.fromEpochs(THREE_EPOCHS).batch(32, true).build()) {
            List<List<Integer>> batches = new ArrayList<>();
            p.forEach(batches::add);
            assertThat(batches).hasSize(9).allMatch(b -> b.size() == 32);
        }
    }

    @Test
    void aContinuousIterableRepeatsEpochsUntilClosed() {
        List<Integer> items = List.of(1, 2, 3);
        try (Pipeline<Integer> p = Pipeline.from(items).continuous().map("a", x -> x, s -> s.concurrency(2)).build()) {
            for (int e = 0; e < 5; e++) {
                List<Integer> epoch = new ArrayList<>();
                p.nextEpoch().forEach(epoch::add);
                assertThat(epoch).containsExactlyInAnyOrder(1, 2, 3);
            }
            Iterator<Integer> forever = p.iterator();
            for (int i = 0; i < 30; i++) {
                assertThat(forever.next()).isBetween(1, 3);
            }
        }
    }

    @Test
    void epochsLimitsACountOfPasses() {
        try (Pipeline<Integer> p = Pipeline.from(List.of(1, 2)).epochs(4).build()) {
            List<Integer> all = new ArrayList<>();
            p.forEach(all::add);
            assertThat(all).containsExactly(1, 2, 1, 2, 1, 2, 1, 2);
        }
    }

    @Test
    void anIteratorSourceCannotBeRepeated() {
        assertThatThrownBy(() -> Pipeline.from(List.of(1).iterator()).continuous().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("can be read once");
    }

    @Test
    void aSupplierSourceEndsAtNull() {
        int[] n = {0};
        try (Pipeline<Integer> p = Pipeline.from(() -> n[0] < 50 ? n[0]++ : null).map("a", x -> x * 2).build()) {
            List<Integer> all = new ArrayList<>();
            p.forEach(all::add);
            assertThat(all).hasSize(50);
        }
    }
}
