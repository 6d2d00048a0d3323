package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.pipeline.SinkStats;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.video.loader.BatchText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
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

    /**
     * Every batch of the loader, as text. A slow consumer takes each batch only once the loader has it ready, its sink
     * as full as the batches still to come allow (polled: the slowest consumer there is, whatever the machine's load);
     * a fast one takes each at once.
     */
    private static List<String> load(ShardDataset shards, LoaderOptions options, ReadAhead readAhead, boolean slowConsumer,
                                     int expectedBatches, PrefetchStats[] stats, double[] readiness) throws InterruptedException {
        List<String> batches = new ArrayList<>();
        try (ShardLoader loader = ShardLoader.open(shards, options, Opening.defaults().with(readAhead))) {
            Iterator<ClipBatch> it = loader.iterator();
            while (true) {
                if (slowConsumer) {
                    SinkStats sink;
                    while ((sink = loader.pipeline().stats().sink()).size() < Math.min(sink.capacity(), expectedBatches - batches.size())) {
                        Thread.sleep(1);   // a poll, not a wait for time to pass
                    }
                }
                if (!it.hasNext()) {
                    break;
                }
                try (ClipBatch batch = it.next()) {
                    batches.add(BatchText.of(batch));
                }
            }
            stats[0] = loader.readAheadStats();
            readiness[0] = loader.pipeline().stats().sink().dataReadiness();
        }
        return batches;
    }

    @Test
    void bytesHeldAheadNeverExceedTheBudget() throws Exception {
        DemoSource.ingest(dest, IngestOptions.Format.RAW); // ~50 KB frames: a clip span is ~0.75 MB
        long budget = 1L << 20;
        PrefetchStats[] stats = new PrefetchStats[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            load(shards, options(3), ReadAhead.defaults().withBudget(budget).withBatchesAhead(8), false, 6, stats, new double[1]);
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
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
        PrefetchStats[] stats = new PrefetchStats[1];
        double[] readiness = new double[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            // 20 epochs of 2 batches, each taken once the loader has it ready
            List<String> batches = load(shards, options(20), ReadAhead.defaults(), true, 40, stats, readiness);
            assertThat(batches).hasSize(40);
        }
        assertThat(readiness[0]).as("data readiness").isGreaterThanOrEqualTo(0.95);
        assertThat(stats[0].hitRate()).as("read-ahead hit rate, %s", stats[0]).isGreaterThanOrEqualTo(0.9);
    }

    @Test
    void coldReadsGiveTheSameBatchesWithAndWithoutReadingAhead() throws Exception {
        DemoSource.ingest(dest, IngestOptions.Format.VIDEO);
        PrefetchStats[] stats = new PrefetchStats[1];
        try (ShardDataset shards = ShardDataset.open(dest)) {
            List<String> warm = load(shards, options(2), ReadAhead.off(), false, 4, stats, new double[1]);
            assertThat(stats[0]).isNull();
            List<String> coldAhead = load(shards, options(2), ReadAhead.defaults().withColdCache(true), false, 4, stats, new double[1]);
            assertThat(stats[0].hits()).isPositive();
            List<String> coldOnDemand = load(shards, options(2), ReadAhead.off().withColdCache(true), false, 4, stats, new double[1]);
            assertThat(coldAhead).isEqualTo(warm);
            assertThat(coldOnDemand).isEqualTo(warm);
        }
    }
}
