package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.Failure;
import dev.stoker.video.FrameFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataset of videos stored as folders of images ({@code ROOT/<class>/<video>/img_00001.jpg}, mmaction2's rawframes)
 * loads like one of video files: exact strided clips at the folder rate the options give, only the clips' frames read
 * and decoded, bad folders counted and skipped, and the same batches with the fetch or demux in a child JVM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrameFolderLoaderTest {
    @TempDir
    static Path dir;
    static Path root;
    static final double FPS = 25;
    static final int W = 96;
    static final int H = 56;

    @BeforeAll
    static void frames() throws IOException {
        root = dir.resolve("rawframes");
        FrameFolders.write(root.resolve("archery/v_archery_01"), "img_", 40, FrameFolders.Kind.JPEG);
        FrameFolders.write(root.resolve("archery/v_archery_02"), "img_", 33, FrameFolders.Kind.JPEG);
        FrameFolders.write(root.resolve("bowling/v_bowling_01"), "frame_", 28, FrameFolders.Kind.PNG);
        FrameFolders.write(root.resolve("bowling/v_bowling_02"), "", 50, FrameFolders.Kind.JPEG);
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().order(5, true, 2).clip(6, 3).frameFolderFps(FPS)
                .size(W, H, Resize.Mode.STRETCH, 0).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1).build();
    }

    /** What a clip showed: its path, label, frame times, frames decoded, and the frame index each slot's pixels carry. */
    private record Seen(ClipInfo info, List<Integer> shown) {
    }

    private static List<Seen> load(Dataset dataset, LoaderOptions options, List<Failure> failures) {
        List<Seen> seen = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (int c = 0; c < batch.clipCount(); c++) {
                        List<Integer> shown = new ArrayList<>();
                        for (int k = 0; k < 6; k++) {
                            shown.add(FrameFolders.readIndex(batch.data(), ((long) c * 6 + k) * W * H * 3, W, H));
                        }
                        seen.add(new Seen(batch.clips().get(c), shown));
                    }
                }
            }
            failures.addAll(loader.pipeline().failures());
        }
        return seen;
    }

    @Test
    void everyFolderGivesItsClipsOfExactStridedFramesReadingAndDecodingNothingElse() throws IOException {
        Dataset dataset = Dataset.open(root);
        assertThat(dataset.size()).isEqualTo(4);
        assertThat(dataset.classNames()).containsExactly("archery", "bowling");
        List<Failure> failures = new ArrayList<>();
        List<Seen> seen = load(dataset, options(), failures);
        assertThat(failures).isEmpty();
        assertThat(seen).hasSize(4 * 2 * 2);
        Map<Path, Integer> perFolder = new HashMap<>();
        // Per folder and epoch (a folder's clips come together): frames decoded, and the distinct frames shown.
        Map<String, Integer> decoded = new HashMap<>();
        Map<String, java.util.Set<Integer>> distinct = new HashMap<>();
        for (int i = 0; i < seen.size(); i++) {
            Seen s = seen.get(i);
            String visit = s.info().path() + "@" + (i / 8);
            decoded.merge(visit, s.info().framesDecoded(), Integer::sum);
            distinct.computeIfAbsent(visit, k -> new java.util.HashSet<>()).addAll(s.shown());
            perFolder.merge(s.info().path(), 1, Integer::sum);
            int first = s.shown().getFirst();
            for (int k = 0; k < 6; k++) {
                assertThat(s.shown().get(k)).as("slot %d of %s", k, s).isEqualTo(first + 3 * k);
                assertThat(s.info().frameTimestampsSeconds()[k]).isCloseTo((first + 3 * k) / FPS, within(1e-6));
            }
            assertThat(s.info().leadFrames()).isZero();
            assertThat(dataset.classNames().get(s.info().label()))
                    .isEqualTo(s.info().path().getParent().getFileName().toString());
        }
        assertThat(perFolder).hasSize(4).allSatisfy((p, n) -> assertThat(n).isEqualTo(4));
        assertThat(decoded).as("every frame a keyframe: a folder's clips decode their own frames, once").hasSize(8)
                .allSatisfy((visit, n) -> assertThat(n).as(visit).isEqualTo(distinct.get(visit).size()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fetch", "demux"})
    void theFetchOrDemuxInAChildJvmGivesTheSameClips(String stage) throws IOException {
        Dataset dataset = Dataset.fromDirectory(root);
        List<Failure> failures = new ArrayList<>();
        List<Seen> inProcess = load(dataset, options(), failures);
        List<Seen> split = load(dataset, options().toBuilder().splitAfter(VideoStage.of(stage)).build(), failures);
        assertThat(failures).isEmpty();
        assertThat(split).hasSameSizeAs(inProcess);
        for (int i = 0; i < split.size(); i++) {
            assertThat(split.get(i).shown()).as("clip %d", i).isEqualTo(inProcess.get(i).shown());
            assertThat(split.get(i).info()).as("clip %d", i).isEqualTo(inProcess.get(i).info());
        }
    }

    @Test
    void resumingInsideAFoldersClipsReadsAndDeliversOnlyTheClipsStillDue() throws IOException {
        // 2 uniform clips a folder, 3 spatial crops each (6 clips a folder), batches of 4: cuts fall inside folders.
        LoaderOptions options = options().toBuilder().order(5, true, 1).batch(4, false, BatchLayout.NTHWC)
                .size(W, H, Resize.Mode.SHORT_SIDE_CENTER_CROP, 64).spatialCrops(3)
                .clipStarts(LoaderOptions.ClipStarts.UNIFORM, 2, 1).build();
        Dataset dataset = Dataset.fromDirectory(root);
        ExactResume.assertResumesExactly(() -> VideoLoader.open(dataset, options),
                saved -> VideoLoader.open(dataset, options, dev.stoker.loader.Opening.defaults().resumingFrom(saved)), 1, 2, 5);
    }

    @Test
    void randomSegmentsOfPngFoldersWithAFrameThreadedDecoderShowOneFrameOfEachSegment() throws IOException {
        // PNG decoding is frame-threaded at 2 threads: frames come out late, past the empty packets of frames not read.
        int segments = 5;
        LoaderOptions options = LoaderOptions.builder().order(3, true, 2).frameFolderFps(FPS).clip(segments, 1)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1).decoder(2, true)
                .size(W, H, Resize.Mode.STRETCH, 0).batch(2, false, BatchLayout.NTHWC).build();
        Path pngs = dir.resolve("pngs");
        FrameFolders.write(pngs.resolve("a/v1"), "frame_", 41, FrameFolders.Kind.PNG);
        FrameFolders.write(pngs.resolve("b/v2"), "frame_", 23, FrameFolders.Kind.PNG);
        Dataset dataset = Dataset.fromDirectory(pngs);
        List<Failure> failures = new ArrayList<>();
        List<List<Integer>> shown = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (int c = 0; c < batch.clipCount(); c++) {
                        int n = batch.clips().get(c).path().getFileName().toString().equals("v1") ? 41 : 23;
                        List<Integer> frames = new ArrayList<>();
                        for (int k = 0; k < segments; k++) {
                            int index = FrameFolders.readIndex(batch.data(), ((long) c * segments + k) * W * H * 3, W, H);
                            assertThat(index).as("segment %d of %d frames", k, n)
                                    .isBetween((int) ((long) k * n / segments), (int) ((long) (k + 1) * n / segments) - 1);
                            frames.add(index);
                        }
                        shown.add(frames);
                    }
                }
            }
            failures.addAll(loader.pipeline().failures());
        }
        assertThat(failures).isEmpty();
        assertThat(shown).hasSize(4);
        assertThat(shown.get(0)).as("epochs draw other frames").isNotEqualTo(shown.get(2)).isNotEqualTo(shown.get(3));
    }

    @Test
    void aDamagedFrameIsCountedWithItsFolderAndTheRestLoads() throws IOException {
        Path mixed = dir.resolve("mixed");
        FrameFolders.write(mixed.resolve("a/good"), "img_", 30, FrameFolders.Kind.JPEG);
        Files.createDirectories(mixed.resolve("a/empty"));
        Path damaged = FrameFolders.write(mixed.resolve("b/damaged"), "img_", 30, FrameFolders.Kind.JPEG);
        for (int i = 1; i <= 30; i++) {
            // Every frame damaged, so that whichever the clips draw is.
            Files.write(damaged.resolve(String.format("img_%05d.jpg", i)), new byte[] {(byte) 0xFF, (byte) 0xD8, 1, 2, 3});
        }
        FrameFolders.write(mixed.resolve("b/good"), "img_", 30, FrameFolders.Kind.JPEG);
        Dataset dataset = Dataset.fromDirectory(mixed);
        assertThat(dataset.entries()).as("a folder without images is no video").hasSize(3);
        List<Failure> failures = new ArrayList<>();
        LoaderOptions options = options().toBuilder().order(5, true, 1).failureBudget(
                dev.stoker.pipeline.FailureBudget.parse("0.9")).build();
        List<Seen> seen = load(dataset, options, failures);
        assertThat(seen).hasSize(2 * 2).allSatisfy(s -> assertThat(s.info().path().getFileName()).hasToString("good"));
        assertThat(failures).singleElement().satisfies(f -> assertThat(f.toString()).contains(damaged.toString())
                .contains("corrupt").contains("not a readable JPEG image"));
    }
}
