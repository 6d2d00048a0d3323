package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_AV1;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_HEVC;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_MPEG4;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_PRORES;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP9;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_MPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_UNSPECIFIED;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_SMPTE170M;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_UNSPECIFIED;

import dev.stoker.loader.batch.BatchLayout;
import org.junit.jupiter.api.Test;

/** What the NVDEC path relies on that can be checked without a device: the FFmpeg build, the kernel, the driver library. */
class NvdecSupportTest {

    @Test
    void theBundledFfmpegHasAnNvdecDecoderForEachCodecInTheTable() {
        assertThat(NvdecCodecs.decoderFor(AV_CODEC_ID_H264)).isEqualTo("h264_cuvid");
        assertThat(NvdecCodecs.decoderFor(AV_CODEC_ID_HEVC)).isEqualTo("hevc_cuvid");
        assertThat(NvdecCodecs.decoderFor(AV_CODEC_ID_VP9)).isEqualTo("vp9_cuvid");
        assertThat(NvdecCodecs.decoderFor(AV_CODEC_ID_AV1)).isEqualTo("av1_cuvid");
        NvdecCodecs.decoders().keySet().forEach(NvdecCodecs::decoderFor); // each one present in this build
        assertThat(NvdecCodecs.hasScaleCuda()).isTrue();
    }

    @Test
    void aCodecWithoutNvdecIsNamed() {
        assertThatThrownBy(() -> NvdecCodecs.decoderFor(AV_CODEC_ID_PRORES))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageStartingWith("codec prores has no NVDEC decoder (expected: one of h264, hevc, vp9, av1,");
    }

    @Test
    void theKernelIsBundledAsPtxThatOldDriversCanJit() {
        String ptx = Nv12Kernel.ptx();
        assertThat(ptx).contains(".version 7.0").contains(".target sm_75").contains(".entry nv12_to_rgb(");
        assertThat(ptx.lines().filter(l -> l.strip().startsWith(".param .") && l.contains("nv12_to_rgb_param_")))
                .as("the one-frame kernel's arguments").hasSize(17);
        assertThat(ptx).contains(".entry nv12_to_rgb_clip(");
    }

    @Test
    void ffmpegsOwnDecodersDecodeTheUsualCodecsOnNvdec() {
        // The hwaccel path (what `ffmpeg -hwaccel cuda` and the NVDEC loader use), not the *_cuvid wrappers.
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_H264)).isTrue();
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_HEVC)).isTrue();
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_VP9)).isTrue();
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_MPEG4)).isTrue();
        // FFmpeg picks libaom-av1 for AV1 in this build: software only, so AV1 goes to the CPU fallback.
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_AV1)).isFalse();
        assertThat(NvdecCodecs.hasHwaccel(AV_CODEC_ID_PRORES)).isFalse();
    }

    @Test
    void theFrameColourPicksTheKernelsMatrixAndRange() {
        assertThat(Nv12Kernel.colourFlags(AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_MPEG)).isZero();
        assertThat(Nv12Kernel.colourFlags(AVCOL_SPC_SMPTE170M, AVCOL_RANGE_UNSPECIFIED)).isZero();
        assertThat(Nv12Kernel.colourFlags(AVCOL_SPC_BT709, AVCOL_RANGE_MPEG)).isEqualTo(Nv12Kernel.COLOUR_BT709);
        assertThat(Nv12Kernel.colourFlags(AVCOL_SPC_BT709, AVCOL_RANGE_JPEG))
                .isEqualTo(Nv12Kernel.COLOUR_BT709 | Nv12Kernel.COLOUR_FULL_RANGE);
    }

    @Test
    void aMissingDecoderLibraryIsNamed() {
        assertThatThrownBy(() -> NvdecCodecs.requireDecoderLibrary("libnvcuvid-missing.so.1"))
                .isInstanceOf(GpuUnavailableException.class)
                .hasMessage("libnvcuvid-missing.so.1 not found: the NVIDIA driver's video decoder library (NVDEC) is"
                        + " not installed, so NVDEC decoding cannot run");
    }

    @Test
    void kernelDestinationsFollowTheBatchLayout() {
        // Batch of clips T=4, 8x10: clip 1, frame 2.
        Nv12Kernel.Destination thwc = Nv12Kernel.Destination.of(1000, BatchLayout.NTHWC, 4, 8, 10, 1, 2);
        assertThat(thwc).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 240, 10, 8, 1, 30, 3));
        Nv12Kernel.Destination cthw = Nv12Kernel.Destination.of(1000, BatchLayout.NCTHW, 4, 8, 10, 1, 2);
        assertThat(cthw).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 80, 10, 8, 320, 10, 1));
        // Mirrored: the kernel writes pixel x at pointer + x * pixelStride, so the last column comes first.
        assertThat(thwc.mirrored()).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 240 + 27, 10, 8, 1, 30, -3));
        assertThat(cthw.mirrored()).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 80 + 9, 10, 8, 320, 10, -1));
    }
}
