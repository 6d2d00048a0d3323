package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.internal.SampleGroups;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class EpochSamplerDeterminismTest {
    private static final SampleGroups SHARDS = shards(10, 7);

    /** {@code shards} shards of {@code perShard} samples each, stored contiguously. */
    static SampleGroups shards(int shards, int perShard) {
        return SampleGroups.of(IntStream.range(0, shards * perShard).map(i -> i / perShard).toArray());
    }

    @Test
    void sameInputsGiveTheSameOrderAndDrawSeedsInEveryRun() {
        SamplerOptions options = SamplerOptions.defaults().withWindow(3).withRank(1, 3);
        EpochSampler a = EpochSampler.create(SHARDS, 42, true, options);
        EpochSampler b = EpochSampler.create(shards(10, 7), 42, true, options);
        for (int epoch = 0; epoch < 5; epoch++) {
            assertThat(b.epoch(epoch)).isEqualTo(a.epoch(epoch));
            assertThat(a.draw(epoch, 5)).isEqualTo(a.epoch(epoch).get(5));
        }
    }

    @Test
    void theOrderIsPinnedAcrossJdksAndReleases() {
        // SplitMix64 is written out, so a saved state stays valid across JDK upgrades. Changing these
        // numbers breaks every saved state: bump SamplerState.VERSION if it must happen.
        EpochSampler sampler = EpochSampler.create(SampleGroups.ungrouped(10), 1, true, SamplerOptions.defaults());
        assertThat(sampler.order(0)).containsExactly(9, 4, 3, 1, 5, 6, 7, 0, 8, 2);
    }

    @Test
    void everyEpochIsAPermutationAndEpochsDiffer() {
        EpochSampler sampler = EpochSampler.create(SHARDS, 7, true, SamplerOptions.defaults().withWindow(2));
        int[] first = sampler.order(0);
        int[] second = sampler.order(1);
        assertThat(Arrays.stream(first).sorted().toArray()).isEqualTo(IntStream.range(0, 70).toArray());
        assertThat(Arrays.stream(second).sorted().toArray()).isEqualTo(IntStream.range(0, 70).toArray());
        assertThat(second).isNotEqualTo(first);
        assertThat(EpochSampler.create(SHARDS, 8, true, SamplerOptions.defaults().withWindow(2)).order(0))
                .isNotEqualTo(first);
    }

    @Test
    void withoutShuffleTheDatasetOrderIsKept() {
        EpochSampler sampler = EpochSampler.create(SHARDS, 7, false, SamplerOptions.defaults().withWindow(2));
        assertThat(sampler.order(3)).isEqualTo(IntStream.range(0, 70).toArray());
    }

    @Test
    void drawSeedsDependOnSeedEpochAndSampleButNotOnRankOrWorldSize() {
        EpochSampler single = EpochSampler.create(SHARDS, 5, true, SamplerOptions.defaults());
        EpochSampler rank1 = EpochSampler.create(SHARDS, 5, true, SamplerOptions.defaults().withRank(1, 2));
        for (SampleDraw d : rank1.epoch(0)) {
            SampleDraw same = single.epoch(0).stream().filter(s -> s.sampleIndex() == d.sampleIndex()).findFirst().orElseThrow();
            assertThat(d.drawSeed()).isEqualTo(same.drawSeed());
        }
        List<Long> seeds = single.epoch(0).stream().map(SampleDraw::drawSeed).distinct().toList();
        assertThat(seeds).hasSize(70);
        assertThat(single.epoch(1).getFirst().drawSeed()).isNotEqualTo(
                single.epoch(0).stream().filter(s -> s.sampleIndex() == single.epoch(1).getFirst().sampleIndex())
                        .findFirst().orElseThrow().drawSeed());
    }

    @Test
    void paddedRepeatsGetTheirOwnDrawSeeds() {
        EpochSampler last = EpochSampler.create(SampleGroups.ungrouped(5), 3, true,
                SamplerOptions.defaults().withRank(2, 3).withTail(SamplerOptions.Tail.PAD));
        // 5 samples over 3 ranks: 2 each, rank 2 gets global positions 4 and 5 (5 repeats position 0).
        EpochSampler first = EpochSampler.create(SampleGroups.ungrouped(5), 3, true,
                SamplerOptions.defaults().withRank(0, 3).withTail(SamplerOptions.Tail.PAD));
        SampleDraw repeat = last.draw(0, 1);
        SampleDraw original = first.draw(0, 0);
        assertThat(repeat.sampleIndex()).isEqualTo(original.sampleIndex());
        assertThat(repeat.drawSeed()).isNotEqualTo(original.drawSeed());
    }
}
