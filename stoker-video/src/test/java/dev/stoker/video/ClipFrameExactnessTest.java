package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;


/**
 * Clips hold exactly the frames their spec selects, with the right timestamps, across codecs,
 * B-frames, long GOPs, a start offset and a variable frame rate: every decoded frame's own
 * embedded index is read back from its pixels.
 */
class ClipFrameExactnessTest {
    @TempDir
    static Path directory;
    private static ClipDecoder decoder;
    private static Arena arena;

    /** A generated video and the presentation time of each of its frames, from the first. */
    record Sample(String name, Path path, int frames, IntToDoubleFunction expectedPts, double ptsTolerance) {
        @Override
        public String toString() { return name; }
    }

    private static final List<Sample> SAMPLES = new ArrayList<>();

    @BeforeAll
    static synchronized void generate() {
        IndexedVideos.requireFfmpeg();
        if (decoder == null) {
            decoder = new ClipDecoder();
            arena = Arena.ofShared();
        }
        if (!SAMPLES.isEmpty()) {
            return;
        }
        IntToDoubleFunction cfr = i -> i / 30.0;
        SAMPLES.add(new Sample("h264 B-frames GOP 48", IndexedVideos.encode(directory, "h264_bframes.mp4", 240,
                List.of("-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "48", "-pix_fmt", "yuv420p")),
                240, cfr, 1e-6));
        SAMPLES.add(new Sample("vp9 alt-ref", IndexedVideos.encode(directory, "vp9.webm", 150,
                List.of("-c:v", "libvpx-vp9", "-deadline", "good", "-cpu-used", "8", "-g", "60", "-b:v", "300k",
                        "-auto-alt-ref", "1", "-lag-in-frames", "16")), 150, cfr, 1.5e-3));
        SAMPLES.add(new Sample("hevc GOP 250", IndexedVideos.encode(directory, "hevc.mp4", 300,
                List.of("-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                        "keyint=250:min-keyint=250:bframes=4:log-level=error", "-pix_fmt", "yuv420p", "-tag:v", "hvc1")),
                300, cfr, 1e-6));
        SAMPLES.add(new Sample("h264 start offset 1.5 s", IndexedVideos.encode(directory, "offset.mp4", 120,
                List.of("-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30", "-output_ts_offset", "1.5")),
                120, cfr, 1e-6));
        SAMPLES.add(new Sample("h264 VFR mkv", IndexedVideos.encode(directory, "vfr.mkv", 150,
                // Timestamps in the 1/30 s input time base: durations 1, then 2, then 3 ticks.
                List.of("-vf", "setpts='if(lt(N,60),N,if(lt(N,100),60+(N-60)*2,140+(N-100)*3))'",
                        "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "40")),
                150, i -> (i < 60 ? i : i < 100 ? 60 + (i - 60) * 2 : 140 + (i - 100) * 3) / 30.0, 1.5e-3));
    }

    @AfterAll
    static synchronized void close() {
        if (decoder != null) {
            decoder.close();
            decoder = null;
        }
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    static Stream<Sample> samples() {
        generate();
        return List.copyOf(SAMPLES).stream();
    }

    static Stream<Arguments> samplesAndThreads() {
        return samples().flatMap(s -> Stream.of(Arguments.of(s, 1), Arguments.of(s, 2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void timelineHasEveryFrameWithItsTimestamp(Sample sample) {
        try (Video video = Video.open(sample.path())) {
            assertThat(video.frameCount()).isEqualTo(sample.frames());
            for (int i = 0; i < sample.frames(); i++) {
                assertThat(video.frameTimeSeconds(i)).as("frame %d", i)
                        .isCloseTo(sample.expectedPts().applyAsDouble(i), within(sample.ptsTolerance()));
            }
        }
    }

    @Test
    void startOffsetIsReportedButClipTimeCountsFromTheFirstFrame() {
        Sample offset = samples().filter(s -> s.name().contains("offset")).findFirst().orElseThrow();
        try (Video video = Video.open(offset.path())) {
            assertThat(video.info().firstFramePtsSeconds()).isGreaterThanOrEqualTo(1.5 - 1e-6);
            assertThat(video.frameTimeSeconds(0)).isZero();
        }
    }

    @ParameterizedTest(name = "{0} threads={1}")
    @MethodSource("samplesAndThreads")
    void stridedClipsHoldExactlyTheSelectedFrames(Sample sample, int threads) {
        try (Video video = Video.open(sample.path()); ClipDecoder threaded = new ClipDecoder(threads, true)) {
            Random random = new Random(sample.name().hashCode() + threads);
            int[] strides = {1, 2, 3, 5, 8};
            List<Double> starts = new ArrayList<>(List.of(0.0, video.frameTimeSeconds(1), video.frameTimeSeconds(47),
                    video.frameTimeSeconds(sample.frames() - 1) + 1));
            for (int i = 0; i < 24; i++) {
                int frame = random.nextInt(sample.frames() - 1);
                // Midway between two frames: the later one must be chosen.
                starts.add((video.frameTimeSeconds(frame) + video.frameTimeSeconds(frame + 1)) / 2);
            }
            for (double start : starts) {
                int stride = strides[random.nextInt(strides.length)];
                ClipSpec.Strided spec = ClipSpec.frames(start, 8, stride);
                int[] expected = expectedStrided(video, start, 8, stride);
                assertClip(video, threaded, spec, expected, sample);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void resampledClipsTakeTheFirstFrameAtOrAfterEachSamplingTime(Sample sample) {
        try (Video video = Video.open(sample.path())) {
            for (double start : new double[] {0.0123, 0.7311, 1.5077, 2.9031}) {
                ClipSpec.Resampled spec = ClipSpec.resampled(start, 1.0, 12);
                double last = video.frameTimeSeconds(sample.frames() - 1);
                double begin = Math.min(start, last - (spec.frameCount() - 1) / 12.0);
                int[] expected = new int[spec.frameCount()];
                for (int k = 0; k < expected.length; k++) {
                    expected[k] = firstAtOrAfter(video, begin + k / 12.0);
                }
                assertClip(video, decoder, spec, expected, sample);
            }
        }
    }

    @Test
    void severalClipsInOneCallShareDecodingAndStayExact() {
        Sample sample = SAMPLES.isEmpty() ? samples().findFirst().orElseThrow() : SAMPLES.getFirst();
        try (Video video = Video.open(sample.path())) {
            double[] starts = {0.5, 0.6, 2.0, 2.1, 5.0, 0.1};
            List<ClipRequest> requests = new ArrayList<>();
            List<int[]> expected = new ArrayList<>();
            int separate = 0;
            for (double start : starts) {
                ClipSpec spec = ClipSpec.frames(start, 8, 2);
                MemorySegment out = arena.allocate(8L * IndexedVideos.WIDTH * IndexedVideos.HEIGHT * 3);
                requests.add(new ClipRequest(spec, Resize.original(), out));
                expected.add(expectedStrided(video, start, 8, 2));
                separate += decoder.decode(video, new ClipRequest(spec, Resize.original(),
                        arena.allocate(out.byteSize()))).decodedFrames();
            }
            List<DecodedClip> clips = decoder.decode(video, requests);
            int together = 0;
            for (int c = 0; c < clips.size(); c++) {
                assertThat(clips.get(c).frameIndices()).containsExactlyElementsOf(boxed(expected.get(c)));
                for (int k = 0; k < 8; k++) {
                    assertThat(IndexedVideos.readIndex(requests.get(c).destination(),
                            k * clips.get(c).frameBytes(), clips.get(c).width(), clips.get(c).height()))
                            .isEqualTo(expected.get(c)[k]);
                }
                together += clips.get(c).decodedFrames();
            }
            assertThat(together).isLessThan(separate);
        }
    }

    @Test
    void skippingNonReferenceFramesDecodesFewerFramesAndTheSameClip() {
        Sample sample = samples().findFirst().orElseThrow();
        try (Video video = Video.open(sample.path()); ClipDecoder full = new ClipDecoder(1, false)) {
            ClipSpec spec = ClipSpec.frames(3.0, 16, 2);
            long bytes = 16L * IndexedVideos.WIDTH * IndexedVideos.HEIGHT * 3;
            MemorySegment skipped = arena.allocate(bytes);
            MemorySegment all = arena.allocate(bytes);
            DecodedClip fast = decoder.decode(video, new ClipRequest(spec, Resize.original(), skipped));
            DecodedClip slow = full.decode(video, new ClipRequest(spec, Resize.original(), all));
            assertThat(fast.frameIndices()).isEqualTo(slow.frameIndices());
            assertThat(fast.decodedFrames()).isLessThan(slow.decodedFrames());
            for (int k = 0; k < 16; k++) {
                assertThat(IndexedVideos.readIndex(skipped, k * fast.frameBytes(), fast.width(), fast.height()))
                        .isEqualTo(fast.frameIndices().get(k));
            }
        }
    }

    @Test
    void scaledAndCroppedOutputKeepsTheFrames() {
        Sample sample = samples().findFirst().orElseThrow();
        try (Video video = Video.open(sample.path())) {
            int[] expected = expectedStrided(video, 1.0, 8, 3);
            MemorySegment out = arena.allocate(8L * 96 * 56 * 3);
            DecodedClip clip = decoder.decode(video, new ClipRequest(ClipSpec.frames(1.0, 8, 3), Resize.stretch(96, 56), out));
            for (int k = 0; k < 8; k++) {
                assertThat(IndexedVideos.readIndex(out, k * clip.frameBytes(), 96, 56)).isEqualTo(expected[k]);
            }
        }
    }

    private static void assertClip(Video video, ClipDecoder clipDecoder, ClipSpec spec, int[] expected, Sample sample) {
        MemorySegment out = arena.allocate((long) spec.frameCount() * IndexedVideos.WIDTH * IndexedVideos.HEIGHT * 3);
        DecodedClip clip = clipDecoder.decode(video, new ClipRequest(spec, Resize.original(), out));
        assertThat(clip.frameIndices()).as("%s %s", sample, spec).containsExactlyElementsOf(boxed(expected));
        for (int k = 0; k < expected.length; k++) {
            int shown = IndexedVideos.readIndex(out, k * clip.frameBytes(), clip.width(), clip.height());
            assertThat(shown).as("%s %s slot %d", sample, spec, k).isEqualTo(expected[k]);
            assertThat(clip.ptsSeconds().get(k)).as("%s %s slot %d pts", sample, spec, k)
                    .isCloseTo(sample.expectedPts().applyAsDouble(expected[k]), within(sample.ptsTolerance()));
        }
    }

    /** The selection rule restated independently: first frame at or after start, SHIFT past the end. */
    private static int[] expectedStrided(Video video, double start, int frames, int stride) {
        int n = video.frameCount();
        int first = firstAtOrAfter(video, start);
        int span = (frames - 1) * stride;
        if (first + span > n - 1) {
            first = Math.max(0, n - 1 - span);
        }
        int[] expected = new int[frames];
        for (int k = 0; k < frames; k++) {
            expected[k] = Math.min(first + k * stride, n - 1);
        }
        return expected;
    }

    /** Linear scan over the video's timeline (whose accuracy the timeline test checks). */
    private static int firstAtOrAfter(Video video, double time) {
        for (int i = 0; i < video.frameCount(); i++) {
            if (video.frameTimeSeconds(i) >= time - 1e-6) {
                return i;
            }
        }
        return video.frameCount();
    }

    private static List<Integer> boxed(int[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }
}
