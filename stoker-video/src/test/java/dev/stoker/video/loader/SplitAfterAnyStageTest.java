package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.subprocess.internal.SharedMemoryFile;
import dev.stoker.video.demo.MixedVideos;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;


/**
 * The loader split after decode, convert, batch or collate (the whole CPU front in the child, only finished
 * batches crossing) delivers exactly the batches of the loader in one process over videos of many kinds: pixels,
 * labels, every clip's path, frame times and decode cost, and the resume state after each batch; a child
 * killed mid-run costs no batch and repeats none; the batches come from this process's pool and all go back.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SplitAfterAnyStageTest {
    @TempDir
    static Path dir;
    static Dataset dataset;

    /** Videos of many kinds: H.264 with B-frames, MPEG-4 in AVI (no pts), rotation, 10-bit, HEVC, VP9, VP8. */
    @BeforeAll
    static void manifest() throws IOException {
        List<String> lines = new ArrayList<>();
        List<Path> videos = MixedVideos.files();
        for (int i = 0; i < videos.size(); i++) {
            lines.add(videos.get(i).toAbsolutePath() + "," + (i % 3));
        }
        Path csv = dir.resolve("samples.csv");
        Files.write(csv, lines);
        dataset = Dataset.open(csv);
    }

    /** Two clips per video, 8 frames of 48×64, batches of 3 (so that batches span videos), one epoch. */
    private static LoaderOptions options() {
        return LoaderOptions.builder().order(11, true, 1).clip(8, 2)
                .size(64, 48, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(3, false, BatchLayout.NCTHW)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1).build();
    }

    /** What a consumer sees of a batch: pixels, labels, clip infos, and the loader's state once it has it. */
    private record Seen(byte[] pixels, int[] labels, List<ClipInfo> clips, SamplerState state) {
        static Seen of(ClipBatch batch, VideoLoader loader) {
            return new Seen(batch.data().toArray(ValueLayout.JAVA_BYTE), batch.labels(), batch.clips(), loader.state());
        }

        void assertSameAs(Seen expected, String what) {
            assertThat(pixels).as(what + " pixels").isEqualTo(expected.pixels);
            assertThat(labels).as(what + " labels").isEqualTo(expected.labels);
            assertThat(clips).as(what + " clips (path, label, frame times, frames decoded)").isEqualTo(expected.clips);
            assertThat(state).as(what + " resume state").isEqualTo(expected.state);
        }
    }

    private static List<Seen> inProcess;

    /** The batches of the loader in one process (made once). */
    private static synchronized List<Seen> inProcess() {
        if (inProcess == null) {
            inProcess = load();
        }
        return inProcess;
    }

    private static List<Seen> load() {
        return load(options());
    }

    private static List<Seen> load(LoaderOptions options) {
        List<Seen> seen = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    seen.add(Seen.of(batch, loader));
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        return seen;
    }

    private static List<Path> ownSharedMemoryFiles() throws IOException {
        String prefix = "stoker-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> files = Files.list(SharedMemoryFile.directory())) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"collate", "batch", "convert", "decode"})
    void splitAfterEachStageDeliversTheBatchesOfTheLoaderInOneProcess(String stage) throws IOException {
        List<Seen> expected = inProcess();
        assertThat(expected).hasSize((2 * dataset.size() + 2) / 3);
        List<Seen> got = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options().toBuilder().splitAfter(VideoStage.of(stage)).build())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    got.add(Seen.of(batch, loader));
                }
            }
            List<String> stages = loader.pipeline().stats().stages().stream().map(s -> s.name()).toList();
            assertThat(stages).contains("child:fetch", "child:demux", "child:decode", "child:" + stage)
                    .doesNotContain("fetch", "demux", "decode", stage);
            if (stage.equals("collate")) {
                assertThat(stages).contains("child:convert", "child:batch", "deliver");
            }
            if (stage.equals("decode")) {
                assertThat(stages).as("split after decode: decode converts").doesNotContain("convert", "child:convert");
            }
            assertThat(loader.pipeline().failures()).isEmpty();
            assertThat(loader.decodedClips()).as("decode cost counted from the delivered clips").isEqualTo(2L * dataset.size());
            assertThat(loader.batchPool().buffersInUse()).as("every batch handed out went back").isZero();
            assertThat(loader.batchPool().leaksDetected()).isZero();
        }
        assertThat(got).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            got.get(i).assertSameAs(expected.get(i), "split after " + stage + ", batch " + i);
        }
        assertThat(ownSharedMemoryFiles()).as("no shared memory file left").isEmpty();
    }

    @Test
    void splitAfterConvertWithFusedConvertSplitsAfterTheDecodeThatConverts() {
        try (VideoLoader loader = VideoLoader.open(dataset, options().toBuilder().fusedConvert(true).splitAfter(VideoStage.CONVERT).build())) {
            Iterator<ClipBatch> it = loader.iterator();
            it.next().close();
            List<String> stages = loader.pipeline().stats().stages().stream().map(s -> s.name()).toList();
            assertThat(stages).contains("child:decode", "batch", "collate").doesNotContain("convert", "child:convert");
        }
    }

    /**
     * Epochs of work the child has when it is killed after the second batch. With one (a few batches, the whole epoch
     * fitting the results ring) the kill was mid-run only by timing: on a loaded machine the child could finish the
     * epoch before the consumer took two batches, and a child killed after its stream's end needs no successor. With
     * eight, it is killed with seven epochs still to decode.
     */
    private static final int KILLED_CHILD_EPOCHS = 8;

    @Test
    void childKilledMidRunAfterCollateLosesNoBatchAndRepeatsNone() throws IOException {
        LoaderOptions options = options().toBuilder().order(11, true, KILLED_CHILD_EPOCHS).build();
        List<Seen> expected = load(options);
        assertThat(expected).as("batches in all, 2 of them taken before the kill").hasSizeGreaterThan(KILLED_CHILD_EPOCHS * 4);
        List<Seen> got = new ArrayList<>();
        List<Long> killed = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options.toBuilder().splitAfter(VideoStage.COLLATE).build())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    got.add(Seen.of(batch, loader));
                }
                if (got.size() == 2) {
                    ProcessHandle child = childJvm().orElseThrow();
                    killed.add(child.pid());
                    child.destroyForcibly();
                }
            }
            assertThat(killed).hasSize(1);
            assertThat(childJvm().map(ProcessHandle::pid)).as("a second child took over").isPresent()
                    .get().isNotEqualTo(killed.getFirst());
            assertThat(loader.pipeline().failures()).as("a kill is no video's fault").isEmpty();
            // What the transport and the stages still hold goes back to the pool when the pipeline closes.
            loader.pipeline().close();
            assertThat(loader.batchPool().buffersInUse()).isZero();
        }
        assertThat(got).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            got.get(i).assertSameAs(expected.get(i), "batch " + i);
        }
        assertThat(ownSharedMemoryFiles()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "collate"})
    void aBatchDroppedUnclosedIsReportedAsALeakAndItsBufferReclaimed(String split) throws InterruptedException {
        try (VideoLoader loader = VideoLoader.open(dataset, options().toBuilder().splitAfter(split.isEmpty() ? null : VideoStage.of(split))
                .batchBudget(2 * 3L * 8 * 48 * 64 * 3).build())) {
            // Two batch buffers: one to leak, one for the next batch, which frees the last reference to the
            // leaked one (the transport's hand-off thread still holds the batch it handed on last).
            Iterator<ClipBatch> it = loader.iterator();
            dropUnclosed(it);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (loader.batchPool().leaksDetected() == 0 && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertThat(loader.batchPool().leaksDetected()).isEqualTo(1);
            int rest = 0;
            while (it.hasNext()) {
                it.next().close();
                rest++;
            }
            assertThat(rest).isEqualTo((2 * dataset.size() + 2) / 3 - 1);
        }
    }

    private static void dropUnclosed(Iterator<ClipBatch> it) {
        assertThat(it.next().clipCount()).isEqualTo(3);
    }

    @Test
    void aBatchOfCaptionsLargerThanTheDefaultRingCrossesTheChildWhole() {
        // 40 clips with a caption of a million characters each: 40 MB of text in one batch, more than the default
        // 32 MiB ring, which the loader sizes for the dataset's longest text.
        List<VideoEntry> captioned = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            VideoEntry e = dataset.get(0);
            captioned.add(new VideoEntry(e.path(), e.label(), e.className(), e.startSeconds(), e.endSeconds(),
                    Optional.of((char) ('a' + i % 26) + "x".repeat(999_999))));
        }
        Dataset longTexts = new Dataset(captioned, dataset.classNames());
        LoaderOptions options = LoaderOptions.builder().order(3, false, 1).clip(1, 1)
                .size(16, 16, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(40, false, BatchLayout.NTHWC).splitAfter(VideoStage.COLLATE).build();
        List<Optional<String>> texts = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(longTexts, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batch.clips().forEach(c -> texts.add(c.text()));
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        assertThat(texts).isEqualTo(captioned.stream().map(VideoEntry::text).toList());
    }

    @Test
    void anUnknownStageNameIsRejectedNamingEveryStage() {
        assertThatThrownBy(() -> VideoStage.of("resize")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stage: 'resize' (expected: one of [fetch, demux, decode, convert, batch, collate])");
    }

    /** The loader's child JVM: this JVM's child running the subprocess entry point. */
    private static Optional<ProcessHandle> childJvm() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(a -> Arrays.asList(a).contains(
                        "dev.stoker.pipeline.subprocess.internal.ChildMain")).orElse(false))
                .findFirst();
    }
}
