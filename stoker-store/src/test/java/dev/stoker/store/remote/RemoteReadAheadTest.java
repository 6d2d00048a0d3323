package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.store.prefetch.internal.KnownOrder;
import dev.stoker.store.remote.internal.Retry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * Remote shards read through the block cache are read ahead in the sampler's epoch order: the GETs reach the server
 * shard after shard in the order the epoch visits them, before the decoders ask (the read-ahead's hits), and a
 * closed loader sends no GET after its close.
 */
@Timeout(120)
class RemoteReadAheadTest {
    @TempDir
    Path cacheDir;

    /** One shard at a time in the epoch order (a window of one shard), so the order of shards is the order of GETs. */
    private static LoaderOptions options(int epochs) {
        return LoaderOptions.builder().clip(8, 2).size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .order(9, true, epochs).sampler(SamplerOptions.defaults().withWindow(1))
                .batch(2, false, BatchLayout.NTHWC).build();
    }

    @Test
    void remoteBlocksAreFetchedInEpochOrderAheadOfTheDecoders() throws Exception {
        Path local = SampleShards.folder();
        LoaderOptions options = options(1);
        ReadAhead readAhead = ReadAhead.defaults().withBatchesAhead(2); // 4 draws ahead
        try (FolderHttpServer server = new FolderHttpServer(local, true);
             ShardDataset shards = ShardDataset.open(HttpBlobStore.open(server.uri(), Retry.standard()),
                     Verification.FIRST_READ, new BlockCache.Settings(cacheDir, 64L << 20, 16 << 10))) {
            // The epoch's shards in the order it visits them.
            EpochSampler sampler = EpochSampler.create(ShardLoader.groups(shards), options.sampling().seed(),
                    options.sampling().shuffle(), options.sampling().sampler());
            Map<String, Integer> shardRank = new HashMap<>();
            for (Iterator<SampleDraw> it = KnownOrder.draws(sampler, sampler.start(), 1); it.hasNext(); ) {
                shardRank.putIfAbsent(shards.sample(it.next().sampleIndex()).shard(), shardRank.size());
            }
            assertThat(shardRank).hasSizeGreaterThan(3);

            PrefetchStats stats;
            try (ShardLoader loader = ShardLoader.open(shards, options, Opening.defaults().with(readAhead))) {
                for (ClipBatch batch : loader) {
                    batch.close();
                }
                stats = loader.readAheadStats();
            }
            assertThat(stats.requests()).isEqualTo(shards.size());
            assertThat(stats.hits()).as("read ahead before the decoders asked").isGreaterThanOrEqualTo(shards.size() - 2L);

            List<Integer> ranks = new ArrayList<>();
            for (String get : new ArrayList<>(server.log)) {
                if (get.startsWith(ShardDataset.MANIFEST)) {
                    continue; // read once by the open
                }
                ranks.add(shardRank.get(get.substring(0, get.indexOf(' '))));
            }
            assertThat(ranks).doesNotContainNull().hasSizeGreaterThan(shardRank.size());
            int furthest = 0;
            for (int i = 0; i < ranks.size(); i++) {
                // Four draws in flight at once may finish a shard's last GET after the next shard's first.
                assertThat(ranks.get(i)).as("GET %d of %s", i, ranks).isGreaterThanOrEqualTo(furthest - 1);
                furthest = Math.max(furthest, ranks.get(i));
            }
            assertThat(furthest).isEqualTo(shardRank.size() - 1);
        }
    }

    @Test
    void aClosedLoaderSendsNoMoreRequests() throws Exception {
        Path local = SampleShards.folder();
        try (FolderHttpServer server = new FolderHttpServer(local, true).delayMillis(50);
             ShardDataset shards = ShardDataset.open(HttpBlobStore.open(server.uri(), Retry.standard()),
                     Verification.FIRST_READ, new BlockCache.Settings(cacheDir, 64L << 20, 4096))) {
            // Many epochs of random clips in small blocks: far more to read ahead than one batch needs.
            ShardLoader loader = ShardLoader.open(shards, options(50), Opening.defaults().with(ReadAhead.defaults().withBatchesAhead(8)));
            try (ClipBatch first = loader.iterator().next()) {
                assertThat(first.clipCount()).isEqualTo(2);
            }
            loader.close();
            long atClose = shards.remoteStats().requests();
            // Nothing of the loader is left to send one: close returned with every thread it started ended and the
            // read-ahead's reads done (Prefetcher.close waits for them). Checked by state, not by a sleep that hopes
            // a stray GET would show within it.
            assertThat(loader.pipeline().liveThreads()).as("threads of the loader alive after close").isEmpty();
            assertThat(loader.readAheadStats().heldItems()).as("read-ahead items held after close").isZero();
            assertThat(shards.remoteStats().requests()).as("requests begun after the loader closed").isEqualTo(atClose);
        }
    }
}
