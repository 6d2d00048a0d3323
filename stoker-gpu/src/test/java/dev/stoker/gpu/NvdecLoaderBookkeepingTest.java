package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * The NVDEC loader's stage wiring and bookkeeping against a fake device and a fake decode session that
 * writes known bytes: the clips planned as the CPU loader plans them, each clip's bytes in its batch slot,
 * labels and metadata, failures reported per video with path, stage and reason within the budget, CPU
 * fallbacks counted, every device buffer given back, sessions closed, config knobs.
 */
@Timeout(120)
class NvdecLoaderBookkeepingTest {
    @TempDir
    static Path dir;
    static Path data;
    static List<Path> videos;

    @BeforeAll
    static void makeData() throws IOException {
        data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 3, 2.0));
        videos = Dataset.open(data).entries().stream().map(e -> e.path()).sorted().toList();
    }

    static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(16, 16, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NCTHW).order(3, true, 1).build();
    }

    /**
     * Selects each clip's frames as the CPU path does and fills its device buffer with one byte per clip;
     * the videos named in {@code failures} throw, those in {@code fallbacks} report a CPU fallback.
     */
    static final class KnownBytes implements DeviceClipDecoder {
        final Map<String, Function<String, RuntimeException>> failures;
        final Map<String, String> fallbacks;
        volatile boolean closed;

        KnownBytes(Map<String, Function<String, RuntimeException>> failures, Map<String, String> fallbacks) {
            this.failures = failures;
            this.fallbacks = fallbacks;
        }

        /** The byte clip {@code clip} of {@code file} is filled with. */
        static byte pattern(Path file, int clip) {
            return (byte) (1 + Math.floorMod(file.getFileName().toString().hashCode() * 31 + clip, 250));
        }

        @Override
        public Decoded decode(Video video, List<Target> clips) {
            String path = video.info().path();
            String name = Path.of(path).getFileName().toString();
            if (failures.containsKey(name)) {
                throw failures.get(name).apply(path);
            }
            List<DecodedClip> out = new ArrayList<>();
            for (int i = 0; i < clips.size(); i++) {
                Target t = clips.get(i);
                FakeDevice.deviceBytes(t.devicePointer(), t.bytes()).fill(pattern(Path.of(path), i));
                ClipSelection selection = video.selectClip(t.spec());
                List<Integer> frames = IntStream.of(selection.frames()).boxed().toList();
                List<Double> times = frames.stream().map(video::frameTimeSeconds).toList();
                out.add(new DecodedClip(path, 16, 16, frames, times, frames.size(), selection.shifted(),
                        selection.repeatedFrames()));
            }
            return new Decoded(out, fallbacks.get(name));
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    record Run(NvdecLoader loader, FakeDevice device, Queue<KnownBytes> sessions) { }

    static Run open(LoaderOptions options, Map<String, Function<String, RuntimeException>> failures,
                    Map<String, String> fallbacks) throws IOException {
        FakeDevice device = new FakeDevice(true);
        Queue<KnownBytes> sessions = new ConcurrentLinkedQueue<>();
        NvdecLoader loader = NvdecLoader.open(Dataset.open(data), options, device, () -> {
            KnownBytes k = new KnownBytes(failures, fallbacks);
            sessions.add(k);
            return k;
        }, null, LoaderFront.start(Dataset.open(data), options), null);
        return new Run(loader, device, sessions);
    }

    @Test
    void plansTheCpuLoadersClipsAndPutsEachClipsBytesInItsSlot() throws IOException {
        LoaderOptions options = options();
        List<List<String>> expected = NvdecLoaderMatchesCpuLoaderTest.cpuBatches(data, options).stream()
                .map(b -> NvdecLoaderMatchesCpuLoaderTest.sampled(b.clips())).toList();
        Run run = open(options, Map.of(), Map.of());
        List<List<String>> actual = new ArrayList<>();
        try (NvdecLoader loader = run.loader()) {
            long clipBytes = 3L * 4 * 16 * 16;
            for (DeviceBatch b : loader) {
                try (b) {
                    actual.add(NvdecLoaderMatchesCpuLoaderTest.sampled(b.clips()));
                    assertThat(b.shape()).containsExactly(b.clipCount(), 3, 4, 16, 16);
                    assertThat(b.byteSize()).isEqualTo(b.clipCount() * clipBytes);
                    for (int k = 0; k < b.clipCount(); k++) {
                        ClipInfo clip = b.clips().get(k);
                        assertThat(b.labels()[k]).isEqualTo(clip.label());
                        MemorySegment slot = FakeDevice.deviceBytes(b.devicePointer() + k * clipBytes, clipBytes);
                        byte want = KnownBytes.pattern(clip.path(), 0);
                        for (long i = 0; i < clipBytes; i++) {
                            if (slot.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != want) {
                                throw new AssertionError("slot " + k + " byte " + i + " is not " + clip.path() + "'s");
                            }
                        }
                    }
                }
            }
            assertThat(loader.clipBuffers().usage().buffersInUse()).isZero();
            assertThat(loader.batchBuffers().usage().buffersInUse()).isZero();
            assertThat(loader.clipBuffers().usage().buffersCreated()).isLessThanOrEqualTo(loader.clipBuffers().maxBuffers());
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(run.sessions()).isNotEmpty().allSatisfy(s -> assertThat(s.closed).isTrue());
        assertThat(run.device().deviceMemory).as("every device buffer freed").isEmpty();
        assertThat(run.device().liveEvents).as("every event destroyed").hasValue(0);
        assertThat(run.device().streams).allSatisfy(s -> assertThat(s.destroyed).isTrue());
    }

    @Test
    void aVideoThatCannotBeDecodedIsSkippedAndReportedWithPathStageAndReason() throws IOException {
        String unsupported = videos.get(1).getFileName().toString();
        String corrupt = videos.get(4).getFileName().toString();
        String fellBack = videos.get(2).getFileName().toString();
        Run run = open(options(), Map.of(
                        unsupported, path -> new VideoException(path, VideoException.Operation.NVDEC, FailureReason.UNSUPPORTED_CODEC,
                                "codec prores: no NVDEC hwaccel; CPU fallback is off"),
                        corrupt, path -> new VideoException(path, VideoException.Operation.DECODE, FailureReason.CORRUPT,
                                "2 wanted frame(s) not produced by the decoder")),
                Map.of(fellBack, "display rotation 90 degrees (the GPU kernel does not rotate)"));
        List<Path> delivered = new ArrayList<>();
        try (NvdecLoader loader = run.loader()) {
            for (DeviceBatch b : loader) {
                try (b) {
                    b.clips().forEach(c -> delivered.add(c.path()));
                }
            }
            assertThat(delivered).hasSize(4).doesNotContain(videos.get(1), videos.get(4)).contains(videos.get(2));
            List<Failure> failures = loader.pipeline().failures();
            assertThat(failures).extracting(Failure::stage).containsOnly("nvdec");
            assertThat(failures).extracting(Failure::item)
                    .containsExactlyInAnyOrder(videos.get(1).toString(), videos.get(4).toString());
            assertThat(failures).extracting(Failure::reason).containsExactlyInAnyOrder("unsupported-codec", "corrupt");
            assertThat(failures).filteredOn(f -> f.reason().equals("unsupported-codec")).singleElement()
                    .satisfies(f -> assertThat(f.describe()).contains(videos.get(1).toString(), "codec prores"));
            assertThat(loader.pipeline().stats().failuresByReason())
                    .containsEntry("nvdec: unsupported-codec", 1L).containsEntry("nvdec: corrupt", 1L);
            assertThat(loader.cpuFallbackClips()).isEqualTo(1);
            assertThat(loader.cpuFallbackReasons())
                    .containsExactly(Map.entry("display rotation 90 degrees (the GPU kernel does not rotate)", 1L));
            assertThat(loader.decodedClips()).isEqualTo(4);
            assertThat(loader.clipBuffers().usage().buffersInUse()).as("failed videos gave their buffers back").isZero();
        }
        assertThat(run.device().deviceMemory).isEmpty();
    }

    @Test
    void failuresBeyondTheBudgetEndIterationNamingTheStage() throws IOException {
        Map<String, Function<String, RuntimeException>> failures = Map.of(
                videos.get(0).getFileName().toString(), path -> new VideoException(path, VideoException.Operation.DECODE,
                        FailureReason.CORRUPT, "bad"),
                videos.get(3).getFileName().toString(), path -> new VideoException(path, VideoException.Operation.DECODE,
                        FailureReason.CORRUPT, "bad"));
        Run run = open(options().toBuilder().failureBudget(FailureBudget.count(1)).build(), failures, Map.of());
        try (NvdecLoader loader = run.loader()) {
            assertThatThrownBy(() -> {
                for (DeviceBatch b : loader) {
                    b.close();
                }
            }).isInstanceOf(PipelineFailedException.class).hasMessageContaining("nvdec");
        }
        assertThat(run.device().deviceMemory).isEmpty();
    }

    @Test
    void closingWithBatchesStillOutFreesTheDeviceMemory() throws IOException {
        Run run = open(options(), Map.of(), Map.of());
        DeviceBatch kept;
        try (NvdecLoader loader = run.loader()) {
            Iterator<DeviceBatch> it = loader.iterator();
            kept = it.next();
            it.next().close();
            assertThat(loader.batchBuffers().usage().buffersInUse()).isGreaterThanOrEqualTo(1);
        }
        assertThat(run.device().deviceMemory).isEmpty();
        kept.close(); // late: harmless
        assertThat(run.sessions()).allSatisfy(s -> assertThat(s.closed).isTrue());
    }

    @Test
    void theStagesAreTheLoadersWithNvdecInPlaceOfDecodeAndConvert() throws IOException {
        int cores = Runtime.getRuntime().availableProcessors();
        Run run = open(options(), Map.of(), Map.of());
        try (NvdecLoader loader = run.loader()) {
            PipelineConfig config = loader.pipeline().config();
            assertThat(config.stages().keySet()).containsExactlyElementsOf(LoaderStage.names(NvdecLoader.STAGES));
            assertThat(config.stage("nvdec").concurrency()).isEqualTo(GpuDecodeOptions.defaultSessions(cores));
            assertThat(loader.batchBuffers().maxBuffers()).isEqualTo(config.sinkCapacity() + 1 + 2);
        }
        Run seven = open(options().toBuilder().config(NvdecLoader.sessions(7)).build(), Map.of(), Map.of());
        try (NvdecLoader loader = seven.loader()) {
            assertThat(loader.pipeline().config().stage("nvdec").concurrency()).isEqualTo(7);
        }
        assertThat(GpuDecodeOptions.defaultSessions(2)).isEqualTo(2);
        assertThat(GpuDecodeOptions.defaultSessions(16)).isEqualTo(4);
    }

    @Test
    void cpuDecodeKnobsAndAProcessSplitAreRefusedSayingWhy() {
        LoaderOptions cpuKnob = options().toBuilder().config(PipelineConfig.EMPTY.withStage("decode",
                StageConfig.EMPTY.withConcurrency(3))).build();
        assertThatThrownBy(() -> open(cpuKnob, Map.of(), Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("config names stage 'decode', which decoding on the GPU replaces (expected: stages"
                        + " [fetch, demux, nvdec, batch, collate]; NVDEC sessions are the 'nvdec' stage's concurrency)");
        assertThatThrownBy(() -> open(options().toBuilder().splitAfter(dev.stoker.loader.VideoStage.DEMUX).build(), Map.of(), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("splitAfter: 'demux' with GPU decoding (expected: null; running fetch and demux in a child"
                        + " process is not supported with NVDEC yet)");
        assertThatThrownBy(() -> NvdecLoader.sessions(0)).hasMessage("sessions: 0 (expected: 1+)");
    }
}
