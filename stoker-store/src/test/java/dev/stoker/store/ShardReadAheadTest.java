package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.video.loader.BatchText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * ShardLoader reads the known order ahead: the bytes held ahead never exceed the budget, a consumer slower
 * than the loader always finds its next batch ready, and reading with a cold page cache (every clip's pages
 * evicted before its read) gives the same batches.
 */
@Timeout(120)
class ShardReadAheadTest {
    @TempDir
    Path dest;

    static LoaderOptions options(int epochs) {
        return LoaderOptions.builder().clip(8, 2).order(3, true, epochs).batch(2, false, BatchLayout.NTHWC)
                .sampler(SamplerOptions.defaults().withWindow(2)).build();
    }

    private static List<String> load(ShardDataset shards, LoaderOptions options, ReadAhead readAhead, long consumerMillis,
                                     PrefetchStats[] stats, double[] readiness) throws InterruptedException {
        List<String> batches = new ArrayList<>();
        try (ShardLoader loader = ShardLoader.open(shards, options, Opening.defaults().with(readAhead))) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batches.add(BatchText.of(batch));
                }
                Thread.sleep(consumerMillis); // the training step
            }
            stats[0] = loader.readAheadStats();
            readiness[0] = loader.pipeline().stats().sink().dataReadiness();
        }
        return batches;
    }

    @Test
    void bytesHeldAheadNeverExceedTheBudget() throws Exception {
        DemoSource.ingest(dest, IngestOptions.RAW); // ~50 KB frames: a clip span is ~0.75 MB
        long budget = 1L << 20;
        PrefetchStats[] stats = new PrefetchStats[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            load(shards, options(3), ReadAhead.defaults().withBudget(budget).withBatchesAhead(8), 0, stats, new double[1]);
        }
        assertThat(stats[0].budgetBytes()).isEqualTo(budget);
        assertThat(stats[0].requests()).isEqualTo(12);
        assertThat(stats[0].peakHeldBytes()).isPositive().isLessThanOrEqualTo(budget);
        assertThat(stats[0].hits()).isPositive();
        assertThat(stats[0].meanOccupancy()).isBetween(0.0, 1.0);
        assertThat(stats[0].heldBytes()).isZero();
    }

    @Test
    void aConsumerSlowerThanTheLoaderFindsItsBatchesReady() throws Exception {
        DemoSource.ingest(dest, IngestOptions.JPEG);
        PrefetchStats[] stats = new PrefetchStats[1];
        double[] readiness = new double[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            // 20 epochs of 2 batches; each step 40 ms, far slower than reading 2 small jpeg clips
            List<String> batches = load(shards, options(20), ReadAhead.defaults(), 40, stats, readiness);
            assertThat(batches).hasSize(40);
        }
        assertThat(readiness[0]).as("data readiness").isGreaterThanOrEqualTo(0.95);
        assertThat(stats[0].hitRate()).as("read-ahead hit rate, %s", stats[0]).isGreaterThanOrEqualTo(0.9);
    }

    @Test
    void coldReadsGiveTheSameBatchesWithAndWithoutReadingAhead() throws Exception {
        DemoSource.ingest(dest, IngestOptions.VIDEO);
        PrefetchStats[] stats = new PrefetchStats[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            List<String> warm = load(shards, options(2), ReadAhead.off(), 0, stats, new double[1]);
            assertThat(stats[0]).isNull();
            List<String> coldAhead = load(shards, options(2), ReadAhead.defaults().withColdCache(true), 0, stats, new double[1]);
            assertThat(stats[0].hits()).isPositive();
            List<String> coldOnDemand = load(shards, options(2), ReadAhead.off().withColdCache(true), 0, stats, new double[1]);
            assertThat(coldAhead).isEqualTo(warm);
            assertThat(coldOnDemand).isEqualTo(warm);
        }
    }
}
