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
        Dataset dataset = Dataset.open(demo);
        LoaderOptions centre = LoaderOptions.builder().order(7, false, 1).batch(4, false, BatchLayout.NTHWC)
                .size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 128)
                .clipStarts(LoaderOptions.ClipStarts.UNIFORM, 2, 1.0).build();
        LoaderOptions crops = centre.toBuilder().spatialCrops(3).build();
        assertThat(crops.clipsPerVideo()).isEqualTo(6);
        List<ClipInfo> plainClips = new ArrayList<>();
        List<byte[]> plain = clipPixels(dataset, centre, plainClips, null);
        List<ClipInfo> croppedClips = new ArrayList<>();
        long[] decodedFrames = new long[2];
        List<byte[]> cropped = clipPixels(dataset, crops, croppedClips, decodedFrames);
        clipPixels(dataset, centre, new ArrayList<>(), decodedFrames);
        assertThat(plainClips).hasSize(12);
        assertThat(croppedClips).hasSize(36);
        assertThat(decodedFrames[0]).as("frames decoded with three crops a clip, and with one").isEqualTo(decodedFrames[1]);
        for (int i = 0; i < plainClips.size(); i++) {
            for (int crop = 0; crop < 3; crop++) {
                ClipInfo c = croppedClips.get(3 * i + crop);
                assertThat(c.path()).isEqualTo(plainClips.get(i).path());
                assertThat(c.frameTimestampsSeconds()).isEqualTo(plainClips.get(i).frameTimestampsSeconds());
            }
            assertThat(cropped.get(3 * i + 1)).as("clip %d's middle crop", i).isEqualTo(plain.get(i));
            assertThat(cropped.get(3 * i)).as("clip %d's first crop", i).isNotEqualTo(plain.get(i));
            assertThat(cropped.get(3 * i + 2)).as("clip %d's last crop", i).isNotEqualTo(cropped.get(3 * i));
        }
    }

    /** Each clip's pixels and info, in order; the loader's decoded frames added at {@code decodedFrames[n]}. */
    private static List<byte[]> clipPixels(Dataset dataset, LoaderOptions options, List<ClipInfo> infos,
                                           long[] decodedFrames) {
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
            if (decodedFrames != null) {
                decodedFrames[decodedFrames[0] == 0 ? 0 : 1] = loader.decodedFrames();
            }
        }
        return out;
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
