package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.video.Video;
import dev.stoker.video.demo.MixedVideos;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which videos the GPU path takes and which go to the CPU fallback before decoding, and why: decided from the
 * demuxed video alone, so it holds on machines without a GPU. Over videos made here and, where present, the real
 * samples of ../shared/videos.
 */
class NvdecSupportedVideosTest {

    /** The shared samples, each with the reason the GPU path refuses it (null: it takes it). */
    private static final String[][] SHARED = {
            {"mmaction2_test_340x256.mp4", null},
            {"torchcodec_bt709_full_range.mp4", null},
            {"mdn_flower_vp8.webm", null},
            {"libwebm_bbb_480p_vp9_opus_1s.webm", null},
            {"torchcodec_h265_128x128.mp4", "128x128 hevc (NVDEC decodes hevc from 144x144)"},
            {"mmaction2_test_mpeg4_mp3.avi", null},
            {"torchcodec_av1_640x360.mkv", "codec av1: its decoder here, libaom-av1, has no NVDEC hwaccel"},
            {"decord_rot90.mov", "display rotation 90 degrees (the GPU kernel does not rotate)"},
            // The MP4 demuxer leaves H.264's pixel format to the decoder: 10-bit shows only when decoding.
            {"torchcodec_h264_10bit.mp4", null},
    };

    /** The same kinds made here (MixedVideos: the ffmpeg command's where it is, the demo generator's H.264 and VP8). */
    private static final Map<String, String> MADE = new HashMap<>();

    static {
        MADE.put("h264_bframes.mp4", null);
        MADE.put("mpeg4_mp3.avi", null);
        // rotate=90, as the ffmpeg command tags it, is 90 degrees counter-clockwise: 270 clockwise.
        MADE.put("rotated_90.mov", "display rotation 270 degrees (the GPU kernel does not rotate)");
        MADE.put("h264_10bit.mp4", null);
        MADE.put("hevc.mp4", "192x128 hevc (NVDEC decodes hevc from 144x144)");
        MADE.put("vp9.webm", null);
    }

    /** Videos made here always, the shared samples where they are; each with its reason. */
    static Stream<Arguments> videos() {
        Stream<Arguments> made = MixedVideos.files().stream().map(p -> Arguments.of(
                Named.of(p.getFileName().toString(), p), MADE.get(p.getFileName().toString())));
        String property = System.getProperty("stoker.shared.videos");
        Stream<Arguments> shared = Stream.of(SHARED)
                .filter(row -> property != null && Files.isRegularFile(Path.of(property, row[0])))
                .map(row -> Arguments.of(Named.of(row[0], Path.of(property, row[0])), row[1]));
        return Stream.concat(made, shared);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void theGpuPathTakesEightBitFourTwoZeroUnrotatedVideosOfNvdecCodecs(Path file, String reason) {
        try (Video video = Video.open(file)) {
            assertThat(NvdecCodecs.unsupportedReason(video.info())).isEqualTo(reason);
        }
    }

    static Path sample(String name) {
        String property = System.getProperty("stoker.shared.videos");
        assumeTrue(property != null, "system property stoker.shared.videos is not set (surefire sets it)");
        Path path = Path.of(property, name);
        assumeTrue(Files.isRegularFile(path), "shared sample video missing: " + path.toAbsolutePath());
        return path;
    }
}
