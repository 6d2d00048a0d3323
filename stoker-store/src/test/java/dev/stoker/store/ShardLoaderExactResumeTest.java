package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.loader.DeliveredClips;
import dev.stoker.video.loader.ExactResume;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * ShardLoader over the sampler's shard groups resumes exactly like VideoLoader: a loader resumed from
 * {@link ShardLoader#state()} delivers the same samples, clip times and random crops (pixel checksums), in
 * the same batches, as the uninterrupted one; ranks load disjoint, complete, equal parts of an epoch.
 */
@Timeout(120)
class ShardLoaderExactResumeTest {
    @TempDir
    static Path dest;

    @BeforeAll
    static void ingest() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG); // 4 samples in 3 shards
    }

    /** Random crops and clip starts, shuffled within windows of 2 shards, 2 epochs of 2 batches. */
    static LoaderOptions options() {
        return LoaderOptions.builder().clip(8, 2).order(5, true, 2).batch(2, false, BatchLayout.NTHWC)
                .size(64, 64, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 96)
                .sampler(SamplerOptions.defaults().withWindow(2)).build();
    }

    private static void assertResumesExactly(LoaderOptions options, int... cuts) throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            ExactResume.assertResumesExactly(() -> ShardLoader.open(shards, options),
                    saved -> ShardLoader.open(shards, options, Opening.defaults().resumingFrom(saved)), cuts);
        }
    }

    @Test
    void resumingMidEpochOnShardsContinuesWithTheSameClipsAndCrops() throws IOException {
        // 4 samples, batches of 2: 2 batches an epoch, 2 epochs. Cut mid-epoch, at the boundary, inside epoch 1.
        assertResumesExactly(options(), 1, 2, 3);
    }

    @Test
    void resumingInsideASamplesClipsSkipsOnlyTheClipsAlreadyDelivered() throws IOException {
        // 2 clips a sample, batches of 3: batch 1 ends after the first clip of the second sample.
        LoaderOptions options = options().toBuilder().order(9, true, 1).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1.0).build();
        try (ShardDataset shards = ShardDataset.open(dest)) {
            ExactResume.Run one = ExactResume.run(ShardLoader.open(shards, options), 1);
            assertThat(one.state().clipsDelivered()).isEqualTo(1);
            assertThat(one.state().position()).isEqualTo(1);
        }
        assertResumesExactly(options, 1, 2);
    }

    @Test
    void resumingInEveryClipSamplingModeContinuesExactly() throws IOException {
        // A decode budget (starts from the sources' keyframes the records list), 2 clips a sample under it, and SPDL's
        // example's clip window (random crops kept, so that its fixed clips differ from epoch to epoch).
        assertResumesExactly(options().toBuilder().maxLeadFrames(8).build(), 1, 3);
        assertResumesExactly(options().toBuilder().order(9, true, 1).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1.0).maxLeadFrames(0).build(), 1, 2);
        assertResumesExactly(Workload.SPDL_EXAMPLE.applyTo(options()).toBuilder()
                .size(64, 64, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 96).build(), 1, 3);
        // Random segments; and 3 spatial crops of a jittered, flipped clip, batch 1 ending between a clip's crops.
        assertResumesExactly(options().toBuilder().clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0).build(),
                1, 3);
        assertResumesExactly(options().toBuilder().order(9, true, 1).size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 96)
                .augment(112, true).spatialCrops(3).build(), 1, 2, 5);
    }

    @Test
    void ranksLoadDisjointCompleteEqualPartsOfAnEpoch() throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            for (int world : new int[] {2, 4}) {
                List<List<Path>> parts = new ArrayList<>();
                for (int rank = 0; rank < world; rank++) {
                    LoaderOptions options = options().toBuilder().order(5, true, 1).batch(1, false, BatchLayout.NTHWC)
                            .sampler(SamplerOptions.defaults().withWindow(2).withRank(rank, world)).build();
                    try (ShardLoader loader = ShardLoader.open(shards, options)) {
                        parts.add(DeliveredClips.sources(loader));
                        assertThat(loader.state().rank()).isEqualTo(rank);
                    }
                }
                Set<Path> union = new HashSet<>();
                for (List<Path> part : parts) {
                    assertThat(part).as("world %d", world).hasSize(shards.size() / world).doesNotHaveDuplicates();
                    for (Path p : part) {
                        assertThat(union.add(p)).as("%s on two ranks of %d", p, world).isTrue();
                    }
                }
                assertThat(union).as("world %d covers the epoch", world).hasSize(shards.size());
            }
        }
    }

    @Test
    void resumingOnOtherShardsOrWithOtherSettingsIsRefused(@TempDir Path other) throws IOException {
        SamplerState state;
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options())) {
            state = loader.state();
            assertThatThrownBy(() -> ShardLoader.open(shards, options().toBuilder().order(6, true, 2).build(), Opening.defaults().resumingFrom(state)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed 6 (state: 5)");
        }
        // the same samples in one shard: another grouping, another order
        Ingest.run(DemoSource.dataset(), other, DemoSource.options(IngestOptions.Format.JPEG).withShardSize(64L << 20), 2,
                IngestListener.NONE);
        try (ShardDataset shards = ShardDataset.open(other)) {
            assertThatThrownBy(() -> ShardLoader.open(shards, options(), Opening.defaults().resumingFrom(state)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataset fingerprint");
        }
    }
}
