package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.internal.SampleGroups;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShuffleWindowLocalityTest {

    @Test
    void eachWindowOfTheEpochReadsAtMostWindowShards() {
        int shards = 12;
        int perShard = 10;
        int window = 3;
        SampleGroups groups = EpochSamplerDeterminismTest.shards(shards, perShard);
        EpochSampler sampler = EpochSampler.create(groups, 99, true, SamplerOptions.defaults().withWindow(window));
        for (int epoch = 0; epoch < 4; epoch++) {
            int[] order = sampler.order(epoch);
            for (int start = 0; start < order.length; start += window * perShard) {
                Set<Integer> touched = new HashSet<>();
                for (int i = start; i < start + window * perShard; i++) {
                    touched.add(order[i] / perShard);
                }
                assertThat(touched).as("shards read by window at %d of epoch %d", start, epoch).hasSize(window);
            }
        }
    }

    @Test
    void samplesAreShuffledWithinTheWindowNotLeftInShardOrder() {
        SampleGroups groups = EpochSamplerDeterminismTest.shards(6, 10);
        int[] order = EpochSampler.create(groups, 5, true, SamplerOptions.defaults().withWindow(2)).order(0);
        int shardSwitches = 0;
        for (int i = 1; i < order.length; i++) {
            if (order[i] / 10 != order[i - 1] / 10) {
                shardSwitches++;
            }
        }
        assertThat(shardSwitches).as("consecutive samples interleave the window's shards").isGreaterThan(10);
    }

    @Test
    void unevenShardsStayInsideTheirWindowSpan() {
        // shard g holds g + 1 samples, scattered through the index (not contiguous)
        int[] ids = IntStream.range(0, 8).flatMap(g -> IntStream.range(0, g + 1).map(i -> g)).toArray();
        int[] scattered = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            scattered[(i * 7) % ids.length] = ids[i]; // 7 is coprime with 36
        }
        SampleGroups groups = SampleGroups.of(scattered);
        int window = 2;
        int[] order = EpochSampler.create(groups, 1, true, SamplerOptions.defaults().withWindow(window)).order(0);
        Map<Integer, int[]> span = new HashMap<>();
        for (int i = 0; i < order.length; i++) {
            int shard = scattered[order[i]];
            int at = i;
            span.merge(shard, new int[] {at, at}, (a, b) -> new int[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
        }
        // Every shard's samples lie within one window: a stretch of at most the two largest shards.
        span.forEach((shard, s) -> assertThat(s[1] - s[0] + 1).isLessThanOrEqualTo(8 + 7));
        // And a cut between windows separates shards: walking the order, at most `window` shards are open at once.
        for (int i = 0; i < order.length; i++) {
            int open = 0;
            for (int[] s : span.values()) {
                if (s[0] <= i && i <= s[1]) {
                    open++;
                }
            }
            assertThat(open).isLessThanOrEqualTo(window);
        }
    }
}
