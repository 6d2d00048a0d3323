package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


class VideoLoaderTest {
    @TempDir
    static Path dir;
    private static final Path demo = DemoFolders.of(DemoSpec.small(2, 3, 2.0));

    @Test
    void loadsEveryVideoOncePerEpochIntoBatchesOfExactStridedClips() throws IOException {
        Dataset dataset = Dataset.open(demo);
        LoaderOptions options = LoaderOptions.builder().order(7, true, 2).batch(4, false, BatchLayout.NTHWC).build();
        List<ClipInfo> clips = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    assertThat(batch.shape()).containsExactly(batch.clipCount(), 16, 112, 112, 3);
                    assertThat(batch.data().byteSize()).isEqualTo(batch.clipCount() * 16L * 112 * 112 * 3);
                    clips.addAll(batch.clips());
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
            assertThat(loader.decodedClips()).isEqualTo(12);
            assertThat(loader.decodedFrames()).isGreaterThanOrEqualTo(12L * 16);
        }
        assertThat(clips).hasSize(12);
        Map<Path, Long> perVideo = new java.util.HashMap<>();
        for (ClipInfo c : clips) {
            perVideo.merge(c.path(), 1L, Long::sum);
            double[] t = c.frameTimestampsSeconds();
            assertThat(t).hasSize(16);
            for (int i = 1; i < t.length; i++) {
                // Matroska stores milliseconds: timestamps are the stream's, rounded as it rounds them.
                assertThat(t[i] - t[i - 1]).isCloseTo(2.0 / 30, within(1.01e-3));
            }
            assertThat(dataset.classNames().get(c.label())).isEqualTo(c.path().getParent().getFileName().toString());
        }
        assertThat(perVideo).hasSize(6).allSatisfy((p, n) -> assertThat(n).isEqualTo(2L));
    }

    @Test
    void spatialCropsDeliverEachUniformClipThreeTimesInARowDecodedOnceTheMiddleTheCentreCrop() throws IOException {
        // The 10x3-view test recipe, smaller: 2 uniform clips a video, 3 crops each, batches of 4 (so a clip's crops
        // straddle batches). A 128 short side gives the 112 crops room to move along the long side.
        LoaderOptions centre = LoaderOptions.builder().order(7, false, 1).batch(4, false, BatchLayout.NTHWC)
                .size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 128)
                .clipStarts(LoaderOptions.ClipStarts.UNIFORM, 2, 1.0).build();
        assertThat(centre.toBuilder().spatialCrops(3).build().clipsPerVideo()).isEqualTo(6);
        long[] decodedFrames = assertEachClipsCropsAreItsCentreCropMoved(centre, 12);
        assertThat(decodedFrames[1]).as("frames decoded with three crops a clip, and with one").isEqualTo(decodedFrames[0]);
    }

    @Test
    void aClipsSpatialCropsShareItsJitteredScaleItsMirrorAndItsRandomSegments() throws IOException {
        // Seeds are the clip start's, not the crop's: each crop of a jittered, flipped clip is that clip cut elsewhere,
        // and the crops of random segments show the segments' same frames.
        LoaderOptions augmented = LoaderOptions.builder().order(7, false, 1).batch(4, false, BatchLayout.NTHWC)
                .size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 128).augment(160, true)
                .clipStarts(LoaderOptions.ClipStarts.UNIFORM, 2, 1.0).build();
        assertEachClipsCropsAreItsCentreCropMoved(augmented, 12);
        assertEachClipsCropsAreItsCentreCropMoved(augmented.toBuilder().clip(8, 1)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0).build(), 6);
    }

    /**
     * Loads {@code plain} with 3 spatial crops and without: every clip comes 3 times in a row with its file and frames,
     * the middle crop its pixels; returns the frames decoded {without, with} crops.
     */
    private static long[] assertEachClipsCropsAreItsCentreCropMoved(LoaderOptions plain, int clips) throws IOException {
        Dataset dataset = Dataset.open(demo);
        long[] decodedFrames = new long[2];
        List<ClipInfo> plainClips = new ArrayList<>();
        List<byte[]> centre = clipPixels(dataset, plain, plainClips, decodedFrames, 0);
        List<ClipInfo> croppedClips = new ArrayList<>();
        List<byte[]> cropped = clipPixels(dataset, plain.toBuilder().spatialCrops(3).build(), croppedClips, decodedFrames, 1);
        assertThat(plainClips).hasSize(clips);
        assertThat(croppedClips).hasSize(3 * clips);
        for (int i = 0; i < plainClips.size(); i++) {
            for (int crop = 0; crop < 3; crop++) {
                ClipInfo c = croppedClips.get(3 * i + crop);
                assertThat(c.path()).isEqualTo(plainClips.get(i).path());
                assertThat(c.frameTimestampsSeconds()).isEqualTo(plainClips.get(i).frameTimestampsSeconds());
            }
            assertThat(cropped.get(3 * i + 1)).as("clip %d's middle crop", i).isEqualTo(centre.get(i));
            assertThat(cropped.get(3 * i)).as("clip %d's first crop", i).isNotEqualTo(centre.get(i));
            assertThat(cropped.get(3 * i + 2)).as("clip %d's last crop", i).isNotEqualTo(cropped.get(3 * i));
        }
        return decodedFrames;
    }

    /** Each clip's pixels and info, in order; the loader's decoded frames at {@code decodedFrames[at]}. */
    private static List<byte[]> clipPixels(Dataset dataset, LoaderOptions options, List<ClipInfo> infos,
                                           long[] decodedFrames, int at) {
        List<byte[]> out = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    long clipBytes = batch.data().byteSize() / batch.clipCount();
                    for (int i = 0; i < batch.clipCount(); i++) {
                        out.add(batch.data().asSlice(i * clipBytes, clipBytes).toArray(ValueLayout.JAVA_BYTE));
                    }
                    infos.addAll(batch.clips());
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
            decodedFrames[at] = loader.decodedFrames();
        }
        return out;
    }

    @Test
    void segmentsTakeEachSegmentsMiddleFrameAndRandomSegmentsAFrameOfEachDrawnAnewEachEpoch() throws IOException {
        // TSN's sampling: 8 frames a video, one from each eighth of it, whatever the video's length.
        Dataset dataset = Dataset.open(demo);
        LoaderOptions segments = LoaderOptions.builder().clip(8, 2).order(7, true, 2).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.SEGMENTS, 1, 1.0).build();
        LoaderOptions random = segments.toBuilder().clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0).build();
        Map<String, List<double[]>> middles = timestampsByVideo(dataset, segments);
        Map<String, List<double[]>> drawn = timestampsByVideo(dataset, random);
        assertThat(middles).hasSize(6);
        assertThat(drawn).hasSize(6);
        Set<String> differ = new HashSet<>();
        for (Map.Entry<String, List<double[]>> e : middles.entrySet()) {
            try (dev.stoker.video.Video video = dev.stoker.video.Video.open(Path.of(e.getKey()))) {
                int n = video.frameCount();
                assertThat(n).as("a demo video's frames").isGreaterThan(16);
                double[] want = new double[8];
                for (int k = 0; k < 8; k++) {
                    want[k] = video.frameTimeSeconds((2 * k + 1) * n / 16);
                }
                assertThat(e.getValue()).as(e.getKey()).allSatisfy(t -> assertThat(t).containsExactly(want));
                List<double[]> epochs = drawn.get(e.getKey());
                assertThat(epochs).hasSize(2);
                for (double[] t : epochs) {
                    for (int k = 0; k < 8; k++) {
                        assertThat(t[k]).as("%s segment %d", e.getKey(), k)
                                .isBetween(video.frameTimeSeconds(k * n / 8), video.frameTimeSeconds((k + 1) * n / 8 - 1));
                    }
                }
                if (!java.util.Arrays.equals(epochs.get(0), epochs.get(1))) {
                    differ.add(e.getKey());
                }
            }
        }
        assertThat(differ).as("videos whose random segments differ between the two epochs").hasSizeGreaterThan(3);

        // Under a decode budget of 0 a segment gives a keyframe of it, or its frame of least lead when it has none.
        Map<String, List<double[]>> budgeted = timestampsByVideo(dataset, random.toBuilder().maxLeadFrames(0).build());
        int keyframes = 0;
        for (Map.Entry<String, List<double[]>> e : budgeted.entrySet()) {
            try (dev.stoker.video.Video video = dev.stoker.video.Video.open(Path.of(e.getKey()))) {
                int n = video.frameCount();
                for (double[] t : e.getValue()) {
                    for (int k = 0; k < 8; k++) {
                        int from = k * n / 8;
                        int to = (k + 1) * n / 8;
                        int picked = from;
                        while (video.frameTimeSeconds(picked) != t[k]) {
                            picked++;
                        }
                        assertThat(picked).as("%s segment %d", e.getKey(), k).isLessThan(to);
                        int least = java.util.stream.IntStream.range(from, to).map(video::decodeLeadFrames).min().orElseThrow();
                        assertThat(video.decodeLeadFrames(picked)).as("%s segment %d's lead", e.getKey(), k).isEqualTo(least);
                        keyframes += least == 0 ? 1 : 0;
                    }
                }
            }
        }
        assertThat(keyframes).as("segments that hold a keyframe").isPositive();
    }

    /** Each video's clips' frame times, in the order delivered. */
    private static Map<String, List<double[]>> timestampsByVideo(Dataset dataset, LoaderOptions options) {
        Map<String, List<double[]>> byVideo = new java.util.TreeMap<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batch.clips().forEach(c -> byVideo.computeIfAbsent(c.path().toString(), p -> new ArrayList<>())
                            .add(c.frameTimestampsSeconds()));
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        return byVideo;
    }

    @Test
    void fusedAndSeparateConvertDeliverTheSameBatches() throws IOException {
        Dataset dataset = Dataset.open(demo);
        LoaderOptions options = LoaderOptions.builder().order(3, true, 1).batch(3, false, BatchLayout.NTHWC).build();
        List<byte[]> separate = pixels(dataset, options);
        List<byte[]> fused = pixels(dataset, options.toBuilder().fusedConvert(true).build());
        assertThat(separate).hasSize(2);
        for (int i = 0; i < separate.size(); i++) {
            assertThat(fused.get(i)).isEqualTo(separate.get(i));
        }
    }

    private static List<byte[]> pixels(Dataset dataset, LoaderOptions options) {
        List<byte[]> out = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    out.add(batch.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                }
            }
            assertThat(loader.pipeline().stats().stages().stream().map(s -> s.name()).toList().contains("convert"))
                    .isEqualTo(!options.decode().fusedConvert());
        }
        return out;
    }

    @Test
    void theEpochOrderAndClipStartsRepeatForTheSameSeed() throws IOException {
        Dataset dataset = Dataset.open(demo);
        LoaderOptions options = LoaderOptions.builder().order(42, true, 1).batch(2, false, BatchLayout.NTHWC)
                .config(new PipelineConfig(null, null, null, Map.of("decode", new StageConfig(1, null, null, null, null, null)))).build();
        assertThat(firstTimestamps(dataset, options)).isEqualTo(firstTimestamps(dataset, options));
    }

    private static List<String> firstTimestamps(Dataset dataset, LoaderOptions options) {
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            return DeliveredClips.of(loader);
        }
    }

    @Test
    void badFilesAreReportedWithPathStageAndReasonAndTheRestArrive() throws IOException {
        Path root = dir.resolve("mixed");
        Path cls = Files.createDirectories(root.resolve("a_class"));
        for (Path video : Dataset.open(demo).entries().stream().map(e -> e.path()).toList()) {
            Files.copy(video, cls.resolve(video.getFileName()));
        }
        Files.writeString(cls.resolve("notes.mp4"), "this is not a video\n");
        Files.write(cls.resolve("empty.mp4"), new byte[0]);
        Path shared = Path.of(System.getProperty("stoker.shared.videos", "../shared/videos"), "damaged");
        if (Files.isDirectory(shared)) {
            try (var damaged = Files.list(shared)) {
                for (Path p : damaged.toList()) {
                    Files.copy(p, cls.resolve(p.getFileName()));
                }
            }
        }
        Dataset dataset = Dataset.open(root);
        LoaderOptions options = LoaderOptions.builder().order(1, false, 1).batch(3, false, BatchLayout.NCTHW)
                .failureBudget(dev.stoker.pipeline.FailureBudget.count(100)).build();
        Set<Path> delivered = new HashSet<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    assertThat(batch.shape()).containsExactly(batch.clipCount(), 3, 16, 112, 112);
                    batch.clips().forEach(c -> delivered.add(c.path()));
                }
            }
            List<Failure> failures = loader.pipeline().failures();
            assertThat(failures).extracting(Failure::item).contains(cls.resolve("notes.mp4").toString(),
                    cls.resolve("empty.mp4").toString());
            assertThat(failures).filteredOn(f -> f.item().endsWith("empty.mp4"))
                    .singleElement().satisfies(f -> {
                        assertThat(f.stage()).isEqualTo("fetch");
                        assertThat(f.reason()).isEqualTo("empty-file");
                    });
            assertThat(failures).filteredOn(f -> f.item().endsWith("notes.mp4"))
                    .singleElement().satisfies(f -> assertThat(f.stage()).isEqualTo("demux"));
            assertThat(delivered.size() + failures.size()).isEqualTo(dataset.size());
        }
        assertThat(delivered).hasSizeGreaterThanOrEqualTo(6);
    }
}
