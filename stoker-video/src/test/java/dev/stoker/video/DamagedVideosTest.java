package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


/** Damaged real-world files fail with a reason, or decode their good part; never crash or hang. */
class DamagedVideosTest {
    @AutoClose
    private static final ClipDecoder decoder = new ClipDecoder();

    static Stream<Path> damaged() {
        return SampleVideos.damaged().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("damaged")
    void failsWithAReasonOrDecodesWhatIsGood(Path file) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            Video video;
            try {
                video = Video.open(file);
            } catch (VideoException e) {
                assertThat(e.path()).isEqualTo(file.toString());
                assertThat(e.reason()).isIn(FailureReason.CORRUPT, FailureReason.TRUNCATED,
                        FailureReason.UNSUPPORTED_CODEC, FailureReason.UNKNOWN_FORMAT);
                return;
            }
            try (video; Arena arena = Arena.ofConfined()) {
                double last = video.frameTimeSeconds(video.frameCount() - 1);
                for (double start : new double[] {0, last / 2, last}) {
                    MemorySegment out = arena.allocate(4L * 64 * 64 * 3);
                    try {
                        DecodedClip clip = decoder.decode(video,
                                new ClipRequest(ClipSpec.frames(start, 4, 1), Resize.stretch(64, 64), out));
                        assertThat(clip.frameCount()).isEqualTo(4);
                    } catch (VideoException e) {
                        assertThat(e.path()).isEqualTo(file.toString());
                        assertThat(e.reason()).isIn(FailureReason.CORRUPT, FailureReason.UNSUPPORTED_CODEC);
                    }
                }
            }
        });
    }

    @Test
    void corruptedFileStillDecodesClipsInItsGoodPart() {
        try (Video video = Video.open(SampleVideos.file("damaged/decord_corrupted.mp4")); Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8L * 112 * 112 * 3);
            DecodedClip clip = decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 8, 2), Resize.centerCrop(128, 112, 112), out));
            assertThat(clip.frameIndices()).containsExactly(0, 2, 4, 6, 8, 10, 12, 14);
        }
    }

    @Test
    void fileCutInsideAPacketKeepsTheFramesBeforeTheCut() {
        try (Video video = Video.open(SampleVideos.file("damaged/DERIVED_flower_truncated_at_50pct_moov_front.mp4"));
             Arena arena = Arena.ofConfined()) {
            assertThat(video.info().indexComplete()).isFalse();
            assertThat(video.frameCount()).isEqualTo(72); // what the ffmpeg CLI decodes
            MemorySegment out = arena.allocate(8L * 64 * 64 * 3);
            DecodedClip clip = decoder.decode(video, new ClipRequest(ClipSpec.frames(100, 8, 1), Resize.stretch(64, 64), out));
            assertThat(clip.shifted()).isTrue();
            assertThat(clip.frameIndices()).endsWith(71);
        }
    }

    @Test
    void absurdFrameSizeIsRefusedBeforeAllocating() {
        Path file = SampleVideos.file("damaged/libwebm_invalid_vp9_bug1416.webm");
        assertThatThrownBy(() -> Video.open(file)).isInstanceOfSatisfying(VideoException.class,
                e -> assertThat(e.reason()).isEqualTo(FailureReason.UNSUPPORTED_CODEC));
    }

    @Test
    void streamWithNoReadablePacketsIsCorrupt() {
        Path file = SampleVideos.file("damaged/libwebm_invalid_fixed_lacing_bad_lace_size.mkv");
        assertThatThrownBy(() -> Video.open(file)).isInstanceOfSatisfying(VideoException.class,
                e -> assertThat(e.reason()).isIn(FailureReason.CORRUPT, FailureReason.TRUNCATED));
    }

    @Test
    void missingMoovIsReportedAsTruncated() {
        Path file = SampleVideos.file("damaged/DERIVED_mmaction2_test_truncated_moov_missing.mp4");
        assertThatThrownBy(() -> Video.open(file)).isInstanceOfSatisfying(VideoException.class,
                e -> assertThat(e.reason()).isEqualTo(FailureReason.TRUNCATED));
    }
}
