package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVDEC session's contract, on the decode API's fake ({@link FakeNvdecApi}: engines, decode surfaces, display
 * delay, mapping, on a model clock) fed with real files' packets through FFmpeg's real bitstream filter: a clip maps
 * exactly the frames it wants; a non-reference picture nobody wants is not decoded; one launch a clip; nothing on the
 * default stream; one host wait a video (so at most one a clip); the engines hold at least display delay + 1 pictures
 * when a frame is mapped; decoders made at most once per session and key over 500 batches, caps asked once per key.
 */
@Timeout(300)
class NvdecSessionContractTest {
    static final BatchShape CLIP = new BatchShape(1, 8, 112, 112, 3, BatchLayout.NCTHW);

    static NvdecSession session(FakeNvdecApi api, NvdecCaps caps, BatchShape clip) {
        return new NvdecSession(api, caps, "fake:0", clip, true, null);
    }

    @Test
    void aClipMapsExactlyTheFramesItWantsAndSkipsUnwantedNonReferencePictures() {
        FakeNvdecApi api = new FakeNvdecApi(7, 1_000_000, 2);
        try (Video video = Video.open(NvdecSupportedVideosTest.sample("mmaction2_test_340x256.mp4"));
             NvdecSession session = session(api, new NvdecCaps(api), CLIP);
             Arena arena = Arena.ofConfined()) {
            assertThat(NvdecSession.covers(video)).isTrue();
            double middle = video.info().durationSeconds() / 2;
            List<ClipSpec> specs = List.of(ClipSpec.frames(0.4, 8, 2), ClipSpec.frames(middle, 8, 1));
            List<Resize> resizes = List.of(Resize.centerCrop(128, 112, 112), Resize.randomCrop(128, 112, 112, 9));
            List<DeviceClipDecoder.Target> targets = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                targets.add(new DeviceClipDecoder.Target(specs.get(i), resizes.get(i), 0x10_0000L * (i + 1), CLIP.batchBytes()));
            }
            DeviceClipDecoder.Decoded decoded = session.decode(video, targets);

            assertThat(decoded.cpuFallbackReason()).isNull();
            assertThat(decoded.path()).isEqualTo(DecodePath.NVDEC);
            TreeSet<Long> wanted = new TreeSet<>();
            try (ClipDecoder cpu = new ClipDecoder()) {
                for (int i = 0; i < 2; i++) {
                    MemorySegment into = arena.allocate(3L * 8 * 112 * 112);
                    DecodedClip expected = cpu.decode(video, new ClipRequest(specs.get(i), resizes.get(i), into));
                    DecodedClip actual = decoded.clips().get(i);
                    assertThat(actual.frameIndices()).isEqualTo(expected.frameIndices());
                    assertThat(actual.ptsSeconds()).isEqualTo(expected.ptsSeconds());
                    expected.frameIndices().forEach(f -> wanted.add(video.frameTimestamp(f)));
                }
            }
            assertThat(api.mappedTimestamps.get()).as("each wanted frame mapped once, no other")
                    .containsExactlyInAnyOrderElementsOf(wanted);
            assertThat(session.counters.clipLaunches).as("one launch a clip").isEqualTo(2);
            assertThat(api.hostWaits.get()).as("host waits: at most one a clip").isBetween(1L, 2L);
            assertThat(session.counters.picturesSkipped).as("unwanted non-reference B-pictures never decoded").isPositive();
            assertThat(api.inFlightAtMapPerDecoder()).as("pictures in the engines when a frame is mapped")
                    .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(NvdecSession.DISPLAY_DELAY + 1));
            assertThat(api.violations).isEmpty();
        }
        assertThat(api.liveDecoders()).as("the session destroyed its decoder on close").isZero();
    }

    /**
     * A stream the parser reports beyond NVDEC's caps (here: wider than 400) fails the parse inside its sequence
     * callback: the router decodes that video on the CPU with the reason, and the session, flushed rather than
     * rebuilt, decodes the next video that fits, leaving no surface mapped.
     */
    @Test
    void aStreamBeyondTheCapsGoesToTheCpuWithItsReasonAndTheSessionGoesOn() {
        FakeNvdecApi api = new FakeNvdecApi(7, 1_000_000, 2);
        api.maxWidth = 400;
        FakeDevice device = new FakeDevice(true);
        BatchShape clip = new BatchShape(1, 4, 32, 32, 3, BatchLayout.NTHWC);
        NvdecSession session = new NvdecSession(api, new NvdecCaps(api), "fake:0", clip, true, null);
        try (NvdecRouter router = new NvdecRouter(session, () -> {
            throw new AssertionError("nothing here goes to FFmpeg's NVDEC");
        }, () -> new CpuClipUploader(device, clip, 1, true));
             Video wide = Video.open(NvdecSupportedVideosTest.sample("mdn_flower_960x540.mp4"));
             Video narrow = Video.open(NvdecSupportedVideosTest.sample("mmaction2_test_340x256.mp4"));
             DeviceMemory target = device.allocate(clip.batchBytes())) {
            List<DeviceClipDecoder.Target> targets = List.of(new DeviceClipDecoder.Target(ClipSpec.frames(1, 4, 2),
                    Resize.centerCrop(32, 32, 32), target.pointer(), clip.batchBytes()));
            DeviceClipDecoder.Decoded fellBack = router.decode(wide, targets);
            assertThat(fellBack.path()).isEqualTo(DecodePath.CPU_FALLBACK);
            assertThat(fellBack.cpuFallbackReason()).isEqualTo("NVDEC: 960x544 outside NVDEC's 48x16 to 400x4096");
            assertThat(NvdecSession.covers(narrow)).isTrue();
            DeviceClipDecoder.Decoded decoded = router.decode(narrow, targets);
            assertThat(decoded.path()).isEqualTo(DecodePath.NVDEC);
            assertThat(decoded.clips().getFirst().frameIndices()).hasSize(4);
            assertThat(router.decode(wide, targets).path()).as("the caps, asked once, still say no")
                    .isEqualTo(DecodePath.CPU_FALLBACK);
            assertThat(api.capsQueries).hasSize(1).allSatisfy((key, n) -> assertThat(n.get()).isEqualTo(1));
        }
        assertThat(api.violations).isEmpty();
        assertThat(api.liveDecoders()).isZero();
    }

    @Test
    void decodersAreMadeOncePerSessionAndKeyOver500Batches(@TempDir Path dir) throws IOException {
        Path data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 3, 2.0));
        int sessions = 2;
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(16, 16, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC).order(3, true, 400).config(NvdecLoader.sessions(sessions)).build();
        FakeNvdecApi api = new FakeNvdecApi(7, 500_000, 2);
        NvdecCaps caps = new NvdecCaps(api);
        FakeDevice device = new FakeDevice(true);
        BatchShape clip = new BatchShape(1, 4, 16, 16, 3, BatchLayout.NTHWC);
        Queue<NvdecSession> made = new ConcurrentLinkedQueue<>();
        long clips = 0;
        int batches = 0;
        try (NvdecLoader loader = NvdecLoader.open(Dataset.open(data), options, device, () -> {
            NvdecSession s = new NvdecSession(api, caps, "fake:0", clip, true, null);
            made.add(s);
            return new NvdecRouter(s, () -> new CpuClipUploader(device, clip, 1, true), null);
        }, null, LoaderFront.start(Dataset.open(data), options), null)) {
            for (DeviceBatch batch : loader) {
                try (batch) {
                    clips += batch.clipCount();
                    for (ClipInfo c : batch.clips()) {
                        assertThat(c.frameTimestampsSeconds()).hasSize(4);
                    }
                }
                if (++batches == 500) {
                    break;
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        assertThat(batches).isEqualTo(500);
        long nativeVideos = made.stream().mapToLong(s -> s.counters.videos).sum();
        long launches = made.stream().mapToLong(s -> s.counters.clipLaunches).sum();
        assertThat(nativeVideos).as("H.264 videos went through the sessions").isPositive();
        assertThat(made).hasSizeLessThanOrEqualTo(sessions);
        assertThat(api.creations.get()).as("decoders made, over " + nativeVideos + " videos")
                .isLessThanOrEqualTo((long) sessions * api.capsQueries.size());
        assertThat(api.capsQueries.values()).allSatisfy(n -> assertThat(n.get()).as("caps asked once a key").isEqualTo(1));
        assertThat(api.hostWaits.get()).as("host waits").isLessThanOrEqualTo(launches).isGreaterThanOrEqualTo(nativeVideos);
        assertThat(api.inFlightAtMapPerDecoder()).allSatisfy(n -> assertThat(n)
                .isGreaterThanOrEqualTo(NvdecSession.DISPLAY_DELAY + 1));
        assertThat(api.violations).as("contract violations").isEmpty();
        assertThat(api.liveDecoders()).isZero();
        assertThat(clips).isEqualTo(1000);
    }
}
