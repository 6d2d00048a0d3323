package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


/** Every healthy real-world sample opens with the right geometry and frame count and decodes clips. */
class SampleVideosTest {
    @AutoClose
    private static final ClipDecoder decoder = new ClipDecoder();

    private static final String MULTI_STREAM = "torchcodec_nasa_13013.mp4";

    @Test
    void multiStreamFileUsesFfmpegsBestVideoStream() {
        try (Video video = Video.open(SampleVideos.file(MULTI_STREAM))) {
            assertThat(video.info().streamIndex()).isEqualTo(3);
            assertThat(video.info().codedWidth()).isEqualTo(480);
            assertThat(video.info().codedHeight()).isEqualTo(270);
            assertThat(video.frameCount()).isEqualTo(390);
        }
    }

    static Stream<SampleVideos.Entry> samples() {
        return SampleVideos.healthy().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void opensWithExpectedGeometryAndFrameCount(SampleVideos.Entry sample) {
        // The manifest row of the two-video-stream file describes stream 0; FFmpeg's best stream
        // (and torchcodec's default) is stream 3, checked separately below.
        assumeFalse(sample.file().equals(MULTI_STREAM), "multi-stream file has its own test");
        try (Video video = Video.open(sample.path())) {
            VideoInfo info = video.info();
            assertThat(info.codedWidth()).isEqualTo(sample.codedWidth());
            assertThat(info.codedHeight()).isEqualTo(sample.codedHeight());
            assertThat(info.rotationDegrees()).isEqualTo(sample.clockwiseRotation());
            boolean quarterTurn = info.rotationDegrees() % 180 != 0;
            assertThat(info.displayWidth()).isEqualTo(quarterTurn ? sample.codedHeight() : sample.codedWidth());
            assertThat(info.displayHeight()).isEqualTo(quarterTurn ? sample.codedWidth() : sample.codedHeight());
            assertThat(info.frameCount()).isEqualTo(sample.decodedFrames());
            assertThat(info.indexComplete()).isTrue();
            assertThat(video.frameTimeSeconds(0)).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void decodesClipsAtStartMiddleAndEnd(SampleVideos.Entry sample) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Video video = Video.open(sample.path()); Arena arena = Arena.ofConfined()) {
                double duration = video.frameTimeSeconds(video.frameCount() - 1);
                Resize resize = Resize.centerCrop(128, 112, 112);
                for (double start : new double[] {0, duration / 2, duration}) {
                    ClipSpec spec = ClipSpec.frames(start, 4, 2);
                    MemorySegment out = arena.allocate(4 * 112 * 112 * 3);
                    DecodedClip clip = decoder.decode(video, new ClipRequest(spec, resize, out));
                    assertThat(clip.frameCount()).isEqualTo(4);
                    assertThat(clip.width()).isEqualTo(112);
                    assertThat(clip.decodedFrames()).isPositive();
                    List<Double> pts = clip.ptsSeconds();
                    for (int k = 1; k < pts.size(); k++) {
                        assertThat(pts.get(k)).isGreaterThanOrEqualTo(pts.get(k - 1));
                    }
                    assertThat(notAllBlack(out)).as("decoded pixels at %s s", start).isTrue();
                }
            }
        });
    }

    private static boolean notAllBlack(MemorySegment pixels) {
        for (long i = 0; i < pixels.byteSize(); i += 97) {
            if (pixels.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) {
                return true;
            }
        }
        return false;
    }
}
