package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.video.Video;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which real videos the GPU path takes and which go to the CPU fallback before decoding, and why: decided
 * from the demuxed video alone, so it holds on machines without a GPU.
 */
class NvdecSupportedVideosTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "mmaction2_test_340x256.mp4   | -",
            "torchcodec_bt709_full_range.mp4 | -",
            "mdn_flower_vp8.webm          | -",
            "libwebm_bbb_480p_vp9_opus_1s.webm | -",
            "torchcodec_h265_128x128.mp4  | '128x128 hevc (NVDEC decodes hevc from 144x144)'",
            "mmaction2_test_mpeg4_mp3.avi | -",
            "torchcodec_av1_640x360.mkv   | 'codec av1: its decoder here, libaom-av1, has no NVDEC hwaccel'",
            "decord_rot90.mov             | display rotation 90 degrees (the GPU kernel does not rotate)",
            // The MP4 demuxer leaves H.264's pixel format to the decoder: 10-bit shows only when decoding.
            "torchcodec_h264_10bit.mp4    | -",
    })
    void theGpuPathTakesEightBitFourTwoZeroUnrotatedVideosOfNvdecCodecs(String name, String reason) {
        try (Video video = Video.open(sample(name))) {
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
