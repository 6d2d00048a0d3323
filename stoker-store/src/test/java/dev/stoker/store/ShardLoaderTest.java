package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderOptionsBuilder;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.Failure;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ShardLoader gives VideoLoader's clips from shards: same labels, frame timestamps and batch shapes for the
 * same options (the order is the sampler's over shards); a damaged record is skipped as a counted failure
 * naming shard and record.
 */
class ShardLoaderTest {
    @TempDir
    Path dest;

    static LoaderOptions options() {
        return LoaderOptions.builder().clip(8, 2).batch(2, false, BatchLayout.NCTHW).order(7, true, 1).build();
    }

    @ParameterizedTest(name = "{0} starts")
    @EnumSource(value = LoaderOptions.ClipStarts.class, names = {"RANDOM", "RANDOM_SEGMENTS"})
    void shardBatchesMatchVideoLoaderBatches(LoaderOptions.ClipStarts starts) throws IOException {
        // The epoch orders differ (shards are the sampler's groups, files are VideoLoader's), the clips do not:
        // each sample gets the clip its source video gets in the same epoch (random segments: the same frames drawn).
        DemoSource.ingest(dest, IngestOptions.Format.VIDEO);
        LoaderOptions options = options().toBuilder().clipStarts(starts, 1, 1.0).build();
        Map<Path, ClipInfo> fromSource = new HashMap<>();
        List<long[]> shapes = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(DemoSource.dataset(), options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batch.clips().forEach(c -> fromSource.put(c.path().toAbsolutePath().normalize(), c));
                    shapes.add(batch.shape());
                }
            }
        }
        List<ClipInfo> fromShards = new ArrayList<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options)) {
            int b = 0;
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromShards.addAll(batch.clips());
                    assertThat(batch.shape()).isEqualTo(shapes.get(b++));
                }
            }
        }
        assertThat(fromShards).hasSize(4);
        assertThat(fromSource).hasSize(4);
        for (ClipInfo shard : fromShards) {
            ClipInfo source = fromSource.get(shard.path());
            assertThat(source).as(shard.path().toString()).isNotNull();
            assertThat(shard.label()).isEqualTo(source.label());
            assertThat(shard.frameTimestampsSeconds()).isEqualTo(source.frameTimestampsSeconds());
        }
    }

    @ParameterizedTest(name = "{0} starts")
    @EnumSource(value = LoaderOptions.ClipStarts.class, names = {"RANDOM", "RANDOM_SEGMENTS"})
    void aRangedEntrysShardClipsAreTheClipsItsVideoGivesWithinTheRange(LoaderOptions.ClipStarts starts)
            throws IOException {
        // Ingest stores the range alone, so a shard's clips can only come from it: the video loader's must too, for a
        // range inside the video, one crossing its end (2 s) and one shorter than a clip (8 frames 2 apart span 0.5 s).
        Dataset demo = DemoSource.dataset();
        double[][] ranges = {{0.5, 1.5}, {1.5, 5.0}, {0.9, 1.1}, {1.0, 1.8}};
        List<VideoEntry> ranged = new ArrayList<>();
        Map<Path, double[]> rangeOf = new HashMap<>();
        for (int i = 0; i < demo.size(); i++) {
            VideoEntry e = demo.get(i);
            ranged.add(new VideoEntry(e.path(), e.label(), e.className(), OptionalDouble.of(ranges[i][0]),
                    OptionalDouble.of(ranges[i][1])));
            rangeOf.put(e.path().toAbsolutePath().normalize(), ranges[i]);
        }
        Dataset dataset = new Dataset(ranged, demo.classNames());
        Ingest.run(dataset, dest, DemoSource.options(IngestOptions.Format.VIDEO), 2, IngestListener.NONE);
        LoaderOptions options = options().toBuilder().order(7, true, 2)
                .clipStarts(starts, starts.segments() ? 1 : 3, 1.0).build();
        Map<Path, List<List<Long>>> fromSource = new HashMap<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (ClipInfo c : batch.clips()) {
                        Path path = c.path().toAbsolutePath().normalize();
                        double[] range = rangeOf.get(path);
                        for (double t : c.frameTimestampsSeconds()) {
                            assertThat(t).as("%s", c).isBetween(range[0] - 1e-6, Math.min(range[1], 2.0) - 1e-6);
                        }
                        // A shard's times count from the range's first frame, which is at its start here.
                        fromSource.computeIfAbsent(path, p -> new ArrayList<>()).add(millis(c, range[0]));
                    }
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        Map<Path, List<List<Long>>> fromShards = new HashMap<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (ClipInfo c : batch.clips()) {
                        fromShards.computeIfAbsent(c.path().toAbsolutePath().normalize(), p -> new ArrayList<>())
                                .add(millis(c, 0));
                    }
                }
            }
        }
        // The epoch orders differ (shards are the sampler's groups): each video's clips, in order of their frames.
        fromSource.values().forEach(clips -> clips.sort(ShardLoaderTest::compareClips));
        fromShards.values().forEach(clips -> clips.sort(ShardLoaderTest::compareClips));
        assertThat(fromShards).hasSize(4).isEqualTo(fromSource);
    }

    /** A clip's frame times in milliseconds from {@code fromSeconds}. */
    private static List<Long> millis(ClipInfo c, double fromSeconds) {
        List<Long> millis = new ArrayList<>();
        for (double t : c.frameTimestampsSeconds()) {
            millis.add(Math.round((t - fromSeconds) * 1000));
        }
        return millis;
    }

    private static int compareClips(List<Long> a, List<Long> b) {
        for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
            int c = Long.compare(a.get(k), b.get(k));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    @Test
    void anIngestKeepsEachSamplesTextAndTheShardLoaderDeliversIt() throws IOException {
        Dataset demo = DemoSource.dataset();
        List<VideoEntry> captioned = new ArrayList<>();
        for (int i = 0; i < demo.size(); i++) {
            VideoEntry e = demo.get(i);
            captioned.add(new VideoEntry(e.path(), e.label(), e.className(), e.startSeconds(), e.endSeconds(),
                    i == 1 ? Optional.empty() : Optional.of("video " + i + ", \u6f22\n")));
        }
        Ingest.run(new Dataset(captioned, demo.classNames()), dest, DemoSource.options(IngestOptions.Format.VIDEO), 2,
                IngestListener.NONE);
        String manifest = Files.readString(dest.resolve(ShardDataset.MANIFEST));
        assertThat(manifest).as("a sample without text writes none").contains("\"text\" : \"video 0, \u6f22\\n\"");
        assertThat(manifest.split("\"text\"", -1)).hasSize(demo.size());
        Map<Path, Optional<String>> texts = new HashMap<>();
        captioned.forEach(e -> texts.put(e.path().toAbsolutePath().normalize(), e.text()));
        List<ClipInfo> delivered = new ArrayList<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, options())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    delivered.addAll(batch.clips());
                }
            }
        }
        assertThat(delivered).hasSize(demo.size())
                .allSatisfy(c -> assertThat(c.text()).as(c.path().toString()).isEqualTo(texts.get(c.path())));
    }

    @ParameterizedTest(name = "flip and jitter: {0}")
    @ValueSource(booleans = {false, true})
    void randomCropsOfShardClipsAreTheVideoLoadersCrops(boolean augmented) throws IOException {
        // Both loaders take a clip's crop seed from LoaderFront.cropSeed (seed, epoch, source, clip). Raw shards
        // keep the source's frames as RGB at its size (149x112), so a crop at the stored short side is a cut of
        // the same picture the video loader converts from YUV: the same window differs by colour rounding and
        // chroma siting only (a mean of 2.5-4.7 levels a pixel here), another window by far more (17-42 with the
        // shard loader's clip ordinal off by one).
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        // Augmented, the seed also draws each clip's short side (112 to 140: then both loaders scale) and its mirror:
        // a clip mirrored by one loader only would differ by far more than the colour rounding.
        LoaderOptionsBuilder options = LoaderOptions.builder().clip(8, 2).size(96, 80, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 112)
                .batch(1, false, BatchLayout.NTHWC).order(7, true, 1);
        LoaderOptions randomCrop = (augmented ? options.augment(140, true) : options).build();
        Map<Path, byte[]> fromSource = new HashMap<>();
        try (VideoLoader loader = VideoLoader.open(DemoSource.dataset(), randomCrop)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromSource.put(batch.clips().getFirst().path().toAbsolutePath().normalize(),
                            batch.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        Map<Path, byte[]> fromShards = new HashMap<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, randomCrop)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromShards.put(batch.clips().getFirst().path(), batch.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        assertThat(fromShards).hasSize(4).containsOnlyKeys(fromSource.keySet());
        fromShards.forEach((path, pixels) ->
                assertThat(meanAbsoluteDifference(pixels, fromSource.get(path))).as(path.toString()).isLessThan(8.0));
    }

    @ParameterizedTest(name = "{0} shards")
    @EnumSource(value = IngestOptions.Format.class, names = {"RAW", "VIDEO"})
    void aShardClipsSpatialCropsAreTheVideoLoadersCrops(IngestOptions.Format format) throws IOException {
        // Three crops a clip, each cut where the video loader cuts it: raw shards copy each crop's window out of the
        // stored frames (their short side is the crop's), video shards decode the clip once for all three. As above,
        // the same window differs by colour rounding only, and the crops are 26 columns apart.
        DemoSource.ingest(dest, format);
        LoaderOptions crops = LoaderOptions.builder().clip(8, 2).size(96, 80, Resize.Mode.SHORT_SIDE_CENTER_CROP, 112)
                .spatialCrops(3).batch(1, false, BatchLayout.NTHWC).order(7, true, 1).build();
        Map<Path, List<byte[]>> fromSource = new HashMap<>();
        try (VideoLoader loader = VideoLoader.open(DemoSource.dataset(), crops)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromSource.computeIfAbsent(batch.clips().getFirst().path().toAbsolutePath().normalize(),
                            p -> new ArrayList<>()).add(batch.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        Map<Path, List<byte[]>> fromShards = new HashMap<>();
        try (ShardDataset shards = ShardDataset.open(dest); ShardLoader loader = ShardLoader.open(shards, crops)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    fromShards.computeIfAbsent(batch.clips().getFirst().path(), p -> new ArrayList<>())
                            .add(batch.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        assertThat(fromShards).hasSize(4).containsOnlyKeys(fromSource.keySet());
        fromShards.forEach((path, clips) -> {
            assertThat(clips).hasSize(3);
            for (int crop = 0; crop < 3; crop++) {
                assertThat(meanAbsoluteDifference(clips.get(crop), fromSource.get(path).get(crop)))
                        .as("%s crop %d", path, crop).isLessThan(8.0);
            }
            assertThat(meanAbsoluteDifference(clips.get(0), clips.get(2))).as("%s: the outer crops", path)
                    .isGreaterThan(8.0);
        });
    }

    private static double meanAbsoluteDifference(byte[] a, byte[] b) {
        assertThat(a).hasSameSizeAs(b);
        long sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += Math.abs((a[i] & 0xFF) - (b[i] & 0xFF));
        }
        return (double) sum / a.length;
    }

    @Test
    void underADecodeBudgetAShardGetsTheClipsItsSourceVideoGets() throws IOException {
        // The demo's videos have one keyframe (GOP 250), the shards one every 16 frames: starts drawn from the shards'
        // own keyframes under a budget of 8 would differ from the videos'; the records list their sources' instead.
        DemoSource.ingest(dest, IngestOptions.Format.VIDEO);
        LoaderOptions budget = options().toBuilder().order(7, true, 3).maxLeadFrames(8).build();
        Map<Path, List<Double>> fromSource = starts(VideoLoader.open(DemoSource.dataset(), budget));
        Map<Path, List<Double>> fromShards;
        try (ShardDataset shards = ShardDataset.open(dest)) {
            fromShards = starts(ShardLoader.open(shards, budget));
        }
        assertThat(fromShards).isEqualTo(fromSource).hasSize(4);
        assertThat(fromShards.values().stream().flatMap(List::stream)).allSatisfy(start ->
                assertThat(start).isLessThanOrEqualTo(8 / 30.0 + 1e-9));
    }

    /** Each video's clip starts over every epoch, sorted; each clip's decode lead checked: the start's frame (GOP 250). */
    private static Map<Path, List<Double>> starts(dev.stoker.loader.HostBatchLoader loader) {
        Map<Path, List<Double>> starts = new HashMap<>();
        try (loader) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (ClipInfo c : batch.clips()) {
                        double start = c.frameTimestampsSeconds()[0];
                        assertThat(c.leadFrames()).as("%s", c).isEqualTo((int) Math.round(start * 30));
                        starts.computeIfAbsent(c.path().toAbsolutePath().normalize(), p -> new ArrayList<>()).add(start);
                    }
                }
            }
            assertThat(loader.startStats().fallbackClips()).isZero();
            assertThat(loader.startStats().clipsWithLead()).isEqualTo(12);
        }
        starts.values().forEach(list -> list.sort(null));
        return starts;
    }

    @Test
    void damagedRecordIsSkippedAsAFailureNamingShardAndRecord() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
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
