package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Failure;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShardLoader gives VideoLoader's batches from shards: same order, labels, frame timestamps and shapes for
 * the same options (raw shards at the batch size: equal pixels too); a damaged record is skipped as a
 * counted failure naming shard and record.
 */
class ShardLoaderTest {
    @TempDir
    Path dest;

    static LoaderOptions options() {
        return LoaderOptions.defaults().withClip(8, 2).withBatch(2, false, BatchLayout.NCTHW).withOrder(7, true, 1);
    }

    @Test
    void shardBatchesMatchVideoLoaderBatches() throws IOException {
        DemoSource.ingest(dest, IngestOptions.VIDEO);
        List<ClipInfo> fromSource = new ArrayList<>();
        List<long[]> shapes = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(DemoSource.dataset(), options())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromSource.addAll(batch.clips());
                    shapes.add(batch.shape());
                }
            }
        }
        List<ClipInfo> fromShards = new ArrayList<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options())) {
            int b = 0;
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromShards.addAll(batch.clips());
                    assertThat(batch.shape()).isEqualTo(shapes.get(b++));
                }
            }
        }
        assertThat(fromShards).hasSize(4);
        for (int i = 0; i < fromSource.size(); i++) {
            assertThat(fromShards.get(i).path()).isEqualTo(fromSource.get(i).path().toAbsolutePath().normalize());
            assertThat(fromShards.get(i).label()).isEqualTo(fromSource.get(i).label());
            assertThat(fromShards.get(i).frameTimestampsSeconds()).isEqualTo(fromSource.get(i).frameTimestampsSeconds());
        }
    }

    @Test
    void damagedRecordIsSkippedAsAFailureNamingShardAndRecord() throws IOException {
        DemoSource.ingest(dest, IngestOptions.JPEG);
        SampleInfo victim;
        try (ShardDataset shards = ShardDataset.open(dest)) {
            victim = shards.sample(2);
        }
        // flip a byte in every packet region of sample 2: wherever a clip starts, it reads damage
        try (ShardDataset shards = ShardDataset.open(dest)) {
            var entry = ShardDatasetAccess.entry(shards, 2);
            try (RandomAccessFile file = new RandomAccessFile(dest.resolve(victim.shard()).toFile(), "rw")) {
                for (int p = 0; p < entry.frameCount(); p++) {
                    long at = entry.payloadOffset() + entry.offsets()[p] + 10;
                    file.seek(at);
                    int b = file.read();
                    file.seek(at);
                    file.write(b ^ 0xFF);
                }
            }
        }
        int clips = 0;
        List<Failure> failures;
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    clips += batch.clipCount();
                }
            }
            failures = loader.pipeline().failures();
        }
        assertThat(clips).isEqualTo(3);
        assertThat(failures).singleElement().satisfies(f -> {
            assertThat(f.stage()).isEqualTo("decode");
            assertThat(f.reason()).isEqualTo("shard-checksum");
            assertThat(f.cause().getMessage()).contains(victim.shard()).contains("record " + victim.record());
        });
    }
}
