package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * Clips sampled under a decode budget and from a clip window are exact: every delivered frame's own index, read
 * back from its pixels, is the frame the clip reports (its time), a budgeted clip's first frame is within the
 * budget of its keyframe (what the clip reports as its lead), and the decoder decoded about the lead plus the
 * clip's span for it. On H.264 with B-frames and fixed GOPs of 10 and 25 frames, 30 fps.
 */
@Timeout(300)
class ClipStartBudgetExactnessTest {
    private static final int FRAMES = 8;
    private static final int STRIDE = 2;
    private static final int SPAN = (FRAMES - 1) * STRIDE + 1;
    @TempDir
    static Path dir;
    static Dataset dataset;
    /** Each video's GOP, by file name. */
    static final Map<String, Integer> GOPS = Map.of("gop10.mp4", 10, "gop25.mp4", 25);

    @BeforeAll
    static void makeDataset() throws IOException {
        IndexedVideos.requireFfmpeg();
        Path folder = Files.createDirectories(dir.resolve("data").resolve("indexed"));
        for (Map.Entry<String, Integer> video : GOPS.entrySet()) {
            String gop = String.valueOf(video.getValue());
            IndexedVideos.encode(folder, video.getKey(), 150, List.of("-c:v", "libx264", "-preset", "veryfast", "-bf", "2",
                    "-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-pix_fmt", "yuv420p"));
            Files.deleteIfExists(folder.resolve(video.getKey() + ".log"));
        }
        dataset = Dataset.open(dir.resolve("data"));
    }

    /** A delivered clip: what it reports and the indices its pixels carry. */
    record Delivered(ClipInfo info, int[] pixelIndices) {
        int gop() {
            return GOPS.get(info.path().getFileName().toString());
        }
    }

    private static List<Delivered> load(LoaderOptions options) {
        List<Delivered> clips = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    int w = options.size().width();
                    int h = options.size().height();
                    int t = options.clip().frames();
                    long frameBytes = (long) w * h * 3;
                    for (int c = 0; c < batch.clipCount(); c++) {
                        int[] indices = new int[t];
                        for (int k = 0; k < t; k++) {
                            indices[k] = IndexedVideos.readIndex(batch.data(), (c * t + k) * frameBytes, w, h);
                        }
                        clips.add(new Delivered(batch.clips().get(c), indices));
                    }
                }
            }
        }
        return clips;
    }

    private static LoaderOptions budget(int maxLeadFrames, int epochs) {
        return LoaderOptions.builder().clip(FRAMES, STRIDE)
                .size(IndexedVideos.WIDTH / 2, IndexedVideos.HEIGHT / 2, Resize.Mode.STRETCH, 0)
                .batch(2, false, BatchLayout.NTHWC).order(11, true, epochs)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 3, 1.0)
                .maxLeadFrames(maxLeadFrames).build();
    }

    @Test
    void budgetedClipsStartWithinTheBudgetAndHoldExactlyTheFramesTheyReport() {
        for (int maxLead : new int[] {0, 4}) {
            List<Delivered> clips = load(budget(maxLead, 4));
            assertThat(clips).hasSize(2 * 3 * 4);
            Set<Integer> starts = new HashSet<>();
            for (Delivered d : clips) {
                int first = d.pixelIndices()[0];
                for (int k = 0; k < FRAMES; k++) {
                    assertThat(d.pixelIndices()[k]).as("%s slot %d", d.info(), k).isEqualTo(first + k * STRIDE);
                    assertThat(d.info().frameTimestampsSeconds()[k]).isCloseTo(d.pixelIndices()[k] / 30.0, within(1e-6));
                }
                assertThat(first % d.gop()).as("%s", d.info()).isLessThanOrEqualTo(maxLead);
                assertThat(d.info().leadFrames()).isEqualTo(first % d.gop());
                // The lead, the clip's span, and at most the B-frames' reorder delay past its last frame.
                assertThat(d.info().framesDecoded()).as("%s", d.info()).isLessThanOrEqualTo(d.info().leadFrames() + SPAN + 3);
                starts.add(first % d.gop());
            }
            assertThat(starts).as("leads drawn").hasSizeGreaterThan(maxLead == 0 ? 0 : 1);
        }
    }

    @Test
    void withoutABudgetClipsStartAnywhereAndReportTheirLead() {
        List<Delivered> clips = load(budget(-1, 4));
        boolean offKeyframe = false;
        for (Delivered d : clips) {
            assertThat(d.info().leadFrames()).isEqualTo(d.pixelIndices()[0] % d.gop());
            offKeyframe |= d.info().leadFrames() > 4;
        }
        assertThat(offKeyframe).as("some clip starts far from its keyframe").isTrue();
    }

    @Test
    void theSpdlWorkloadTakesTheFirstHalfSecondsFramesAndRepeatsTheLast() {
        LoaderOptions options = Workload.SPDL_EXAMPLE.applyTo(LoaderOptions.builder().batch(2, false, BatchLayout.NTHWC)
                .order(3, true, 1).build());
        assertThat(options.size().width()).isEqualTo(112);
        List<Delivered> clips = load(options);
        assertThat(clips).hasSize(2);
        for (Delivered d : clips) {
            // [0, 0.5 s) at 30 fps holds frames 0 to 14: all of them, then the last again.
            assertThat(d.pixelIndices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 14);
            assertThat(d.info().frameTimestampsSeconds()[15]).isCloseTo(14 / 30.0, within(1e-6));
            assertThat(d.info().leadFrames()).isZero();
            assertThat(d.info().framesDecoded()).isLessThanOrEqualTo(16);
        }
    }

    @Test
    void aWindowsVideoIsIndexedOnlyAsFarAsItsClipNeedsWithTheSameFrames() throws IOException {
        Path path = dataset.get(0).path();
        try (Video whole = Video.open(path); Video first = Video.openFirstSeconds(path.toString(), Files.readAllBytes(path), 0.5);
             ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            // Read to 0.5 s and the read margin past it, with B-frames' reorder: far from the 150 frames.
            assertThat(first.frameCount()).isBetween(15, 15 + 30 + 3);
            for (int f = 0; f < 40; f++) {
                assertThat(first.frameTimeSeconds(f)).as("frame %d", f).isEqualTo(whole.frameTimeSeconds(f));
                assertThat(first.decodeLeadFrames(f)).isEqualTo(whole.decodeLeadFrames(f));
            }
            Resize resize = Resize.stretch(IndexedVideos.WIDTH, IndexedVideos.HEIGHT);
            long frameBytes = (long) IndexedVideos.WIDTH * IndexedVideos.HEIGHT * 3;
            MemorySegment out = arena.allocate(16 * frameBytes);
            DecodedClip clip = decoder.decode(first, new ClipRequest(ClipSpec.linspace(0, 0.5, 16), resize, out));
            assertThat(clip.frameIndices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 14);
            for (int k = 0; k < 16; k++) {
                assertThat(IndexedVideos.readIndex(out, k * frameBytes, IndexedVideos.WIDTH, IndexedVideos.HEIGHT))
                        .isEqualTo(Math.min(k, 14));
            }
        }
    }

    @Test
    void aLongerWindowIsPickedByLinspaceAndOnePastTheEndTakesTheLastFrame() {
        Path video = dataset.get(0).path();
        try (Video opened = Video.open(video); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            Resize resize = Resize.stretch(IndexedVideos.WIDTH, IndexedVideos.HEIGHT);
            long frameBytes = (long) IndexedVideos.WIDTH * IndexedVideos.HEIGHT * 3;
            MemorySegment out = arena.allocate(16 * frameBytes);
            // [1 s, 2 s) holds frames 30 to 59: torch.linspace(0, 29, 16).long() picks 0, 1, 3, 5, ..., 29 of them.
            DecodedClip clip = decoder.decode(opened, new ClipRequest(ClipSpec.linspace(1.0, 1.0, 16), resize, out));
            int[] expected = {30, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59};
            for (int k = 0; k < 16; k++) {
                assertThat(IndexedVideos.readIndex(out, k * frameBytes, IndexedVideos.WIDTH, IndexedVideos.HEIGHT))
                        .isEqualTo(expected[k]);
            }
            assertThat(clip.frameIndices()).containsExactly(30, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59);
            assertThat(clip.repeatedFrames()).isZero();
            DecodedClip past = decoder.decode(opened, new ClipRequest(ClipSpec.linspace(9.0, 0.5, 4), resize, out));
            assertThat(past.frameIndices()).containsExactly(149, 149, 149, 149);
            assertThat(past.shifted()).isTrue();
        }
    }
}
