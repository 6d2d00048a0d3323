package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.dataset.SamplerOptions.Tail;
import dev.stoker.loader.dataset.internal.SampleGroups;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RankPartitionTest {

    private static List<int[]> ranks(SampleGroups groups, int world, Tail tail, int epoch) {
        List<int[]> out = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            out.add(EpochSampler.create(groups, 11, true, new SamplerOptions(3, r, world, tail)).order(epoch));
        }
        return out;
    }

    @Test
    void ranksGetDisjointEqualPartsThatCoverTheEpochWhenItDivides() {
        SampleGroups groups = EpochSamplerDeterminismTest.shards(8, 6); // 48 samples
        for (Tail tail : Tail.values()) {
            List<int[]> parts = ranks(groups, 4, tail, 2);
            Set<Integer> seen = new HashSet<>();
            for (int[] part : parts) {
                assertThat(part).hasSize(12);
                for (int s : part) {
                    assertThat(seen.add(s)).as("sample %d on two ranks", s).isTrue();
                }
            }
            assertThat(seen).hasSize(48);
        }
    }

    @Test
    void dropTailGivesEqualDisjointPartsAndDropsOnlyTheRemainder() {
        SampleGroups groups = EpochSamplerDeterminismTest.shards(5, 7); // 35 samples over 4 ranks: 8 each, 3 dropped
        List<int[]> parts = ranks(groups, 4, Tail.DROP, 0);
        Set<Integer> seen = new HashSet<>();
        for (int[] part : parts) {
            assertThat(part).hasSize(8);
            for (int s : part) {
                assertThat(seen.add(s)).isTrue();
            }
        }
        assertThat(seen).hasSize(32);
        // The dropped ones are the last of the global shuffled sequence (what rank 0 of 1 sees).
        int[] whole = EpochSampler.create(groups, 11, true, new SamplerOptions(3, 0, 1, Tail.DROP)).order(0);
        Set<Integer> dropped = new HashSet<>();
        for (int i = 32; i < 35; i++) {
            dropped.add(whole[i]);
        }
        assertThat(dropped).doesNotContainAnyElementsOf(seen);
    }

    @Test
    void padTailGivesEqualPartsCoveringEverySampleRepeatingFromTheStart() {
        SampleGroups groups = EpochSamplerDeterminismTest.shards(5, 7); // 35 over 4 ranks: 9 each, 1 repeated
        List<int[]> parts = ranks(groups, 4, Tail.PAD, 1);
        List<Integer> all = new ArrayList<>();
        for (int[] part : parts) {
            assertThat(part).hasSize(9);
            for (int s : part) {
                all.add(s);
            }
        }
        assertThat(new HashSet<>(all)).hasSize(35);
        assertThat(all).hasSize(36);
        assertThat(all.getLast()).isEqualTo(all.getFirst());
    }

    @Test
    void padCoversAWorldLargerThanTheDataset() {
        List<int[]> parts = ranks(SampleGroups.ungrouped(3), 8, Tail.PAD, 0);
        Set<Integer> seen = new HashSet<>();
        parts.forEach(p -> {
            assertThat(p).hasSize(1);
            seen.add(p[0]);
        });
        assertThat(seen).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void dropWithFewerSamplesThanRanksIsAClearError() {
        assertThatThrownBy(() -> EpochSampler.create(SampleGroups.ungrouped(3), 1, true, new SamplerOptions(0, 0, 8, Tail.DROP)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 samples for worldSize 8");
    }

    @Test
    void badRankIsAClearError() {
        assertThatThrownBy(() -> SamplerOptions.defaults().withRank(4, 4))
                .hasMessage("rank: 4 (expected: 0..3 for worldSize 4)");
    }
}
