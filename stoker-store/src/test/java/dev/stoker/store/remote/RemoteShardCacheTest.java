package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.remote.internal.Retry;
import dev.stoker.video.loader.BatchText;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shard loader over a real S3 server (s3proxy in this JVM) through a local block cache: the batches are those of
 * the uncached loader, a second epoch over the same clips and a rerun on the same cache folder send no GET for the
 * shards, and a budget below one batch's working set is refused naming both numbers.
 */
@Timeout(180)
class RemoteShardCacheTest {
    @RegisterExtension
    final S3SampleShards s3 = new S3SampleShards();

    @TempDir
    Path cacheDir;

    /** Every video's middle clip (uniform starts: the same clips every epoch), in batches of 4. */
    static LoaderOptions options(int epochs) {
        return LoaderOptions.builder().clip(8, 2).clipStarts(LoaderOptions.ClipStarts.UNIFORM, 1, 1.0)
                .size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0).order(5, true, epochs)
                .batch(4, false, BatchLayout.NTHWC).build();
    }

    /** What a loader over {@code shards} delivers, a line a batch (clips and a checksum of the pixels). */
    static List<String> load(ShardDataset shards, LoaderOptions options) {
        List<String> batches = new ArrayList<>();
        try (ShardLoader loader = ShardLoader.open(shards, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batches.add(BatchText.of(batch));
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        return batches;
    }

    private ShardDataset open(BlockCache.Settings cache) throws IOException {
        return ShardDataset.open(S3BlobStore.open(S3SampleShards.LOCATION, s3.settings(), Retry.standard()), Verification.FIRST_READ, cache);
    }

    @Test
    void aRerunAndASecondEpochReadTheShardsFromTheCache() throws IOException {
        List<String> uncached;
        try (ShardDataset plain = open(null)) {
            uncached = load(plain, options(1));
        }
        BlockCache.Settings cache = new BlockCache.Settings(cacheDir, 64L << 20, 16 << 10);
        BlockCache.Stats firstRun;
        long firstRunRequests;
        try (ShardDataset shards = open(cache)) {
            long atOpen = shards.remoteStats().requests();
            assertThat(load(shards, options(1))).isEqualTo(uncached);
            firstRun = shards.blockCache().stats();
            firstRunRequests = shards.remoteStats().requests() - atOpen;
        }
        assertThat(firstRunRequests).isPositive().isEqualTo(firstRun.requests());
        assertThat(firstRun.uncached()).isZero();
        assertThat(firstRun.bytesFetched()).isGreaterThan(0);

        try (ShardDataset rerun = open(cache)) {
            long atOpen = rerun.remoteStats().requests();
            assertThat(load(rerun, options(1))).isEqualTo(uncached);
            assertThat(rerun.remoteStats().requests()).as("a rerun downloads nothing of the shards").isEqualTo(atOpen);
            assertThat(rerun.blockCache().stats().hitRate()).isEqualTo(1.0);
        }

        BlockCache.Settings fresh = new BlockCache.Settings(cacheDir.resolve("two-epochs"), 64L << 20, 16 << 10);
        try (ShardDataset shards = open(fresh)) {
            List<String> twoEpochs = load(shards, options(2));
            assertThat(twoEpochs).hasSize(2 * uncached.size());
            BlockCache.Stats stats = shards.blockCache().stats();
            // Each block is downloaded once, whatever the timing: the second epoch's equal clips added no byte.
            assertThat(stats.bytesFetched()).isEqualTo(firstRun.bytesFetched());
            assertThat(stats.misses() + stats.fetchedAhead()).isEqualTo(firstRun.misses() + firstRun.fetchedAhead());
            assertThat(stats.hits()).isGreaterThan(firstRun.hits());
        }
    }

    @Test
    void aBudgetBelowOneBatchsWorkingSetIsRefused() throws IOException {
        BlockCache.Settings tiny = new BlockCache.Settings(cacheDir, 40_000, 16 << 10);
        try (ShardDataset shards = open(tiny)) {
            long sampleBytes = shards.maxSamplePayloadBytes();
            long workingSet = shards.blockCache().batchWorkingSetBytes(4, sampleBytes);
            assertThat(workingSet).isGreaterThan(40_000);
            assertThatThrownBy(() -> ShardLoader.open(shards, options(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cache budget 40000 bytes")
                    .hasMessageContaining("working set, " + workingSet + " bytes");
        }
    }
}
