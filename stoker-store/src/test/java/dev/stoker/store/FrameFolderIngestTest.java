package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.shard.Manifest;
import dev.stoker.video.FrameFolders;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Videos stored as folders of frames ingest into shards at the rate the ingest gives them; an ingest that gives none
 * writes the options as before the rate existed, so that its shards match earlier ones.
 */
class FrameFolderIngestTest {
    @TempDir
    Path dir;

    @Test
    void foldersOfFramesAreStoredAtTheFrameRateGiven() throws IOException {
        Path root = dir.resolve("rawframes");
        FrameFolders.write(root.resolve("a/v1"), "img_", 20, FrameFolders.Kind.JPEG);
        FrameFolders.write(root.resolve("b/v2"), "img_", 15, FrameFolders.Kind.PNG);
        Dataset dataset = Dataset.open(root);
        IngestOptions options = IngestOptions.defaults().withFormat(IngestOptions.Format.JPEG).withFrameFolderFps(25);
        Ingest.run(dataset, dir.resolve("shards"), options, 2, IngestListener.NONE);
        try (ShardDataset shards = ShardDataset.open(dir.resolve("shards"))) {
            assertThat(shards.size()).isEqualTo(2);
            SampleInfo first = shards.sample(0);
            assertThat(first.frameCount()).isEqualTo(20);
            assertThat(first.framesPerSecond()).isCloseTo(25, within(1e-9));
            assertThat(first.durationSeconds()).isCloseTo(20 / 25.0, within(1e-9));
            assertThat(shards.sample(1).durationSeconds()).isCloseTo(15 / 25.0, within(1e-9));
            assertThat(shards.options().folderFramesPerSecond()).isEqualTo(25);
        }
    }

    @Test
    void aManifestsRangeOfAFolderIsIngestedReadingThatRangeOnly() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("long/a/v"), "img_", 60, FrameFolders.Kind.JPEG);
        // Frames far outside the range are damaged: an ingest that read them would fail the sample.
        for (int i : new int[] {1, 2, 50, 60}) {
            java.nio.file.Files.write(folder.resolve(String.format("img_%05d.jpg", i)), new byte[] {1, 2, 3});
        }
        Path manifest = java.nio.file.Files.writeString(dir.resolve("cuts.csv"), folder + ",0,0.4,0.8\n");
        IngestOptions options = IngestOptions.defaults().withFormat(IngestOptions.Format.JPEG).withFrameFolderFps(25);
        Ingest.Result result = Ingest.run(Dataset.open(manifest), dir.resolve("cut"), options, 1, IngestListener.NONE);
        assertThat(result.failed()).isZero();
        try (ShardDataset shards = ShardDataset.open(dir.resolve("cut"))) {
            assertThat(shards.sample(0).frameCount()).as("frames shown from 0.4 s to 0.8 s at 25 fps").isEqualTo(10);
        }
    }

    @Test
    void optionsWithoutAFrameRateAreWrittenAsBeforeItExisted() throws IOException {
        String header = new Manifest.Header(1, IngestOptions.Format.JPEG, IngestOptions.defaults().withFormat(IngestOptions.Format.JPEG))
                .toJson();
        // The options as written before the rate existed, key for key: such shards match.
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(header).get("options").fieldNames())
                .toIterable().containsExactly("format", "width", "height", "shortSide", "framesPerSecond", "gopFrames",
                        "shardSizeBytes", "jpegQuality");
        assertThat(IngestOptions.defaults().withFrameFolderFps(30)).as("30 given is 30 not given")
                .isEqualTo(IngestOptions.defaults());
        assertThat(IngestOptions.defaults().folderFramesPerSecond()).isEqualTo(30);
        String given = new Manifest.Header(1, IngestOptions.Format.JPEG, IngestOptions.defaults().withFrameFolderFps(25)).toJson();
        assertThat(given).contains("\"frameFolderFps\":25.0");
        assertThat(Manifest.Header.parse(header).options()).isEqualTo(IngestOptions.defaults().withFormat(IngestOptions.Format.JPEG));
    }
}
