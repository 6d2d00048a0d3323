package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.demo.MixedVideos;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A clip's augmentations as FFmpeg decodes it: a mirrored clip is, pixel for pixel, the unmirrored clip of the same
 * crop read right to left (rotated videos too: the mirror is of what is displayed), and a jittered short side is the
 * clip a plain resize to the drawn short side gives. A clip's spatial crops (test-time views) are decoded once and cut
 * along the long side.
 */
class AugmentedClipTest {

    /** Made here (B-frames, a rotated MOV, 10-bit, ...) and, where present, shared samples. */
    static Stream<Named<Path>> videos() {
        return SampleVideos.madeAndShared("mmaction2_test_340x256.mp4", "decord_rot90.mov");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void aMirroredClipIsTheSameCropReadRightToLeft(Path file) {
        ClipSpec spec = ClipSpec.frames(0, 4, 2);
        long seed = mirroredSeed(Resize.randomCrop(72, 56, 40, 0));
        Resize plain = Resize.randomCrop(72, 56, 40, seed);
        Resize flipped = plain.augmented(seed, 0, true);
        assertThat(flipped.framing()).isEqualTo(new Resize.Framing(plain.framing().cropX(), plain.framing().cropY(), 72,
                true));
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            long bytes = new ClipRequest(spec, plain, MemorySegment.NULL).requiredBytes(video.info());
            MemorySegment straight = arena.allocate(bytes);
            MemorySegment mirrored = arena.allocate(bytes);
            DecodedClip a = decoder.decode(video, new ClipRequest(spec, plain, straight));
            DecodedClip b = decoder.decode(video, new ClipRequest(spec, flipped, mirrored));
            assertThat(b).isEqualTo(a);
            assertThat(mirrored.mismatch(straight)).as("a mirror changes the pixels").isNotEqualTo(-1);
            int width = plain.width();
            for (long row = 0; row < (long) spec.frameCount() * plain.height(); row++) {
                for (int x = 0; x < width; x++) {
                    for (int c = 0; c < 3; c++) {
                        byte want = straight.get(ValueLayout.JAVA_BYTE, (row * width + (width - 1 - x)) * 3 + c);
                        byte got = mirrored.get(ValueLayout.JAVA_BYTE, (row * width + x) * 3 + c);
                        if (got != want) {
                            throw new AssertionError(file + ": row " + row + " pixel " + x + " channel " + c + " is " + got
                                    + " (expected: " + want + ", pixel " + (width - 1 - x) + " of the unmirrored row)");
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void aJitteredShortSideDecodesAsAPlainResizeToTheDrawnSide(Path file) {
        ClipSpec spec = ClipSpec.frames(0, 3, 1);
        Resize jittered = Resize.centerCrop(64, 48, 48).augmented(11, 128, false);
        int drawn = jittered.framing().shortSide();
        assertThat(drawn).isBetween(64, 128);
        Resize plain = Resize.centerCrop(drawn, 48, 48);
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            long bytes = new ClipRequest(spec, plain, MemorySegment.NULL).requiredBytes(video.info());
            MemorySegment want = arena.allocate(bytes);
            MemorySegment got = arena.allocate(bytes);
            decoder.decode(video, new ClipRequest(spec, plain, want));
            decoder.decode(video, new ClipRequest(spec, jittered, got));
            assertThat(got.mismatch(want)).isEqualTo(-1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void overlappingClipsAtTenScalesDecodeTogetherAsEachAlone(Path file) {
        // One request of ten clips over the same frames, each at its own short side: the converter switches scales
        // frame by frame (more scales than it keeps contexts for), and every clip must be what it is decoded alone.
        List<ClipRequest> together = new ArrayList<>();
        List<ClipRequest> alone = new ArrayList<>();
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            for (int i = 0; i < 10; i++) {
                ClipSpec spec = ClipSpec.frames(0, 3, 1 + i % 2);
                Resize resize = Resize.centerCrop(40 + 8 * i, 32, 32).augmented(i, 0, i % 3 == 0);
                long bytes = new ClipRequest(spec, resize, MemorySegment.NULL).requiredBytes(video.info());
                together.add(new ClipRequest(spec, resize, arena.allocate(bytes)));
                alone.add(new ClipRequest(spec, resize, arena.allocate(bytes)));
            }
            decoder.decode(video, together);
            for (ClipRequest request : alone) {
                decoder.decode(video, request);
            }
            for (int i = 0; i < 10; i++) {
                assertThat(together.get(i).destination().mismatch(alone.get(i).destination())).as("clip %d", i)
                        .isEqualTo(-1);
            }
            assertThat(together.get(0).destination().mismatch(together.get(1).destination()))
                    .as("different scales, different pixels").isNotEqualTo(-1);
        }
    }

    /** The demo generator's 8-bit 4:2:0 videos, upright (H.264 and VP8), made here. */
    static Stream<Named<Path>> demoVideos() {
        return MixedVideos.files().stream().filter(p -> p.getFileName().toString().matches(".*_\\d{3}\\.(mp4|webm)"))
                .map(p -> Named.of(p.getFileName().toString(), p));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("demoVideos")
    void aRandomResizedCropIsItsDrawnCutScaledAsFfmpegScalesIt(Path file) throws Exception {
        IndexedVideos.requireFfmpeg();
        // A seed that cuts well under half the picture, so that a wrong window could not pass for the right one.
        Resize resize = LongStream.range(1, 200).mapToObj(s -> Resize.randomResizedCrop(64, 48, 0.1, s))
                .filter(r -> r.framing().area() < 0.4).findFirst().orElseThrow();
        Resize.Framing framing = resize.framing();
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            int w = video.info().displayWidth();
            int h = video.info().displayHeight();
            Resize.Window cut = resize.sourceWindow(0, w, h, framing, 64, 48, 1, 1);
            double share = (double) cut.width() * cut.height() / ((double) w * h);
            assertThat(share).as("the cut's share of the picture").isBetween(0.1 * 0.9, framing.area() * 1.1);
            MemorySegment ours = arena.allocate(64 * 48 * 3);
            decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 1, 1), resize, ours));
            assertThat(ConversionMatchesFfmpegTest.meanAbsoluteDifference(ours, ffmpegFirstFrame(file, cut, 64, 48)))
                    .as("mean |ours - ffmpeg|").isLessThan(3.0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void aClipsSpatialCropsDecodeOnceAndTheMiddleOfThreeIsItsCentreCrop(Path file) {
        ClipSpec spec = ClipSpec.frames(0, 4, 2);
        Resize centre = Resize.centerCrop(48, 40, 40);
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder together = new ClipDecoder();
             ClipDecoder alone = new ClipDecoder()) {
            long bytes = new ClipRequest(spec, centre, MemorySegment.NULL).requiredBytes(video.info());
            List<ClipRequest> crops = new ArrayList<>();
            for (int crop = 0; crop < 3; crop++) {
                crops.add(new ClipRequest(spec, centre.spatialCrop(crop, 3), arena.allocate(bytes)));
            }
            together.decode(video, crops);
            MemorySegment plain = arena.allocate(bytes);
            alone.decode(video, new ClipRequest(spec, centre, plain));
            assertThat(together.decodedFrames()).as("three crops of a clip decode its frames once")
                    .isEqualTo(alone.decodedFrames());
            assertThat(crops.get(1).destination().mismatch(plain)).as("the middle crop").isEqualTo(-1);
            int w = video.info().displayWidth();
            int h = video.info().displayHeight();
            if (w != h) {
                assertThat(crops.get(0).destination().mismatch(plain)).as("the first crop moved").isNotEqualTo(-1);
                assertThat(crops.get(2).destination().mismatch(crops.get(0).destination())).as("the last crop moved")
                        .isNotEqualTo(-1);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("demoVideos")
    void theOuterSpatialCropsAreTheEndsOfTheLongSideScaledAsFfmpegScalesThem(Path file) throws Exception {
        IndexedVideos.requireFfmpeg();
        Resize centre = Resize.centerCrop(64, 48, 48);
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            int w = video.info().displayWidth();
            int h = video.info().displayHeight();
            assertThat(w).as("a landscape video").isGreaterThan(h);
            for (int crop : new int[] {0, 2}) {
                Resize resize = centre.spatialCrop(crop, 3);
                Resize.Window cut = resize.sourceWindow(0, w, h, resize.framing(), 48, 48, 1, 1);
                assertThat(cut.x()).as("crop %d's column", crop).isEqualTo(crop == 0 ? 0 : (w - cut.width()) & ~1);
                assertThat(Math.abs(cut.y() - (h - cut.height()) / 2)).as("crop %d centred down", crop).isLessThanOrEqualTo(1);
                MemorySegment ours = arena.allocate(48 * 48 * 3);
                decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 1, 1), resize, ours));
                assertThat(ConversionMatchesFfmpegTest.meanAbsoluteDifference(ours, ffmpegFirstFrame(file, cut, 48, 48)))
                        .as("crop %d: mean |ours - ffmpeg|", crop).isLessThan(3.0);
            }
        }
    }

    /** The first frame of {@code file} as ffmpeg cuts {@code cut} from it and scales it (bilinear) to width x height. */
    private static byte[] ffmpegFirstFrame(Path file, Resize.Window cut, int width, int height) throws Exception {
        Process ffmpeg = new ProcessBuilder("ffmpeg", "-nostdin", "-v", "error", "-i", file.toString(), "-frames:v", "1",
                "-vf", "crop=" + cut.width() + ":" + cut.height() + ":" + cut.x() + ":" + cut.y() + ",scale=" + width + ":"
                + height + ":flags=bilinear", "-f", "rawvideo", "-pix_fmt", "rgb24", "-")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] reference = ffmpeg.getInputStream().readAllBytes();
        assertThat(ffmpeg.waitFor()).isZero();
        assertThat(reference).hasSize(width * height * 3);
        return reference;
    }

    /** The first seed whose framing is mirrored once flips are on. */
    private static long mirroredSeed(Resize resize) {
        return LongStream.range(1, 100).filter(s -> resize.augmented(s, 0, true).framing().mirrored()).findFirst()
                .orElseThrow();
    }
}
