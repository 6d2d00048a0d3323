package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_HEVC;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_PRORES;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP9;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_AV1;

import dev.stoker.video.batch.BatchLayout;
import org.junit.jupiter.api.Test;

/** What the NVDEC path relies on that can be checked without a device: the FFmpeg build, the kernel, the geometry. */
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
        assertThat(ptx.lines().filter(l -> l.strip().startsWith(".param"))).hasSize(17);
    }

    @Test
    void centreCropMatchesShortSideResizeThenCrop() {
        // 320x240 to 112x112: the middle 240x240.
        assertThat(NvdecDecoder.centerCrop(320, 240, 112, 112)).containsExactly(40f, 0f, 240f, 240f);
        // 240x320 (portrait) to 112x112: the middle 240x240 vertically.
        assertThat(NvdecDecoder.centerCrop(240, 320, 112, 112)).containsExactly(0f, 40f, 240f, 240f);
        // 1920x1080 to 160x90: same aspect, the whole frame.
        assertThat(NvdecDecoder.centerCrop(1920, 1080, 160, 90)).containsExactly(0f, 0f, 1920f, 1080f);
    }

    @Test
    void kernelDestinationsFollowTheBatchLayout() {
        // Batch of clips T=4, 8x10: clip 1, frame 2.
        Nv12Kernel.Destination thwc = Nv12Kernel.Destination.of(1000, BatchLayout.NTHWC, 4, 8, 10, 1, 2);
        assertThat(thwc).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 240, 10, 8, 1, 30, 3));
        Nv12Kernel.Destination cthw = Nv12Kernel.Destination.of(1000, BatchLayout.NCTHW, 4, 8, 10, 1, 2);
        assertThat(cthw).isEqualTo(new Nv12Kernel.Destination(1000 + 960 + 2 * 80, 10, 8, 320, 10, 1));
    }
}
