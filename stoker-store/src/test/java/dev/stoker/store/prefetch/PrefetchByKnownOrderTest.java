package dev.stoker.store.prefetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.internal.SampleGroups;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.store.prefetch.internal.KnownOrder;
import dev.stoker.store.prefetch.internal.Prefetcher;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PrefetchByKnownOrderTest {
    private static final SampleGroups SHARDS = SampleGroups.of(IntStream.range(0, 60).map(i -> i / 6).toArray());

    @Test
    void aConsumerFollowingTheSamplerIsServedEntirelyFromPrefetchedData() throws Exception {
        EpochSampler sampler = EpochSampler.create(SHARDS, 3, true, SamplerOptions.defaults().withWindow(2).withRank(1, 2));
        int[] sizes = IntStream.range(0, 60).map(i -> 1_000 + i).toArray();
        PrefetchBudgetTest.SizedReader reader = new PrefetchBudgetTest.SizedReader(sizes, 100_000);
        try (Prefetcher<Integer, byte[]> ahead = Prefetcher.start(KnownOrder.sampleIndices(sampler, sampler.start(), 3),
                reader, 8, 6_000)) {
            for (int epoch = 0; epoch < 3; epoch++) {
                for (SampleDraw d : sampler.epoch(epoch)) {
                    reader.consumed(ahead.take(d.sampleIndex()));
                }
            }
            PrefetchStats stats = ahead.stats();
            assertThat(stats.requests()).isEqualTo(90);
            assertThat(stats.misses()).isZero();
            assertThat(stats.hitRate()).isEqualTo(1.0);
            assertThat(stats.peakHeldBytes()).isLessThanOrEqualTo(6_000);
            assertThat(stats.dropped()).isZero();
        }
    }

    @Test
    void theUpcomingSequenceFromAStateIsTheRestOfTheUninterruptedOne() {
        EpochSampler sampler = EpochSampler.create(SHARDS, 3, true, SamplerOptions.defaults().withWindow(3));
        List<SampleDraw> all = new ArrayList<>();
        KnownOrder.draws(sampler, sampler.start(), 2).forEachRemaining(all::add);
        assertThat(all).hasSize(120);
        SamplerState mid = sampler.stateAfter(all.get(75));
        List<SampleDraw> rest = new ArrayList<>();
        Iterator<SampleDraw> it = KnownOrder.draws(EpochSampler.resume(SHARDS, SamplerState.fromJson(mid.toJson())), mid, 2);
        it.forEachRemaining(rest::add);
        assertThat(rest).isEqualTo(all.subList(76, 120));
    }
}
