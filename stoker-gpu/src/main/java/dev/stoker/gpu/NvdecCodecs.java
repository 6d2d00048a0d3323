package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_AV1;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_HEVC;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_MJPEG;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_MPEG4;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP8;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP9;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_name;
import static org.bytedeco.ffmpeg.global.avfilter.avfilter_get_by_name;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which NVDEC decoder of the bundled FFmpeg decodes which codec ({@code h264_cuvid} for H.264, ...), and
 * what of the CUDA side this FFmpeg build has. Asking needs no device.
 */
public final class NvdecCodecs {
    private static final Map<Integer, String> DECODERS = new LinkedHashMap<>();

    static {
        DECODERS.put(AV_CODEC_ID_H264, "h264_cuvid");
        DECODERS.put(AV_CODEC_ID_HEVC, "hevc_cuvid");
        DECODERS.put(AV_CODEC_ID_VP9, "vp9_cuvid");
        DECODERS.put(AV_CODEC_ID_AV1, "av1_cuvid");
        DECODERS.put(AV_CODEC_ID_VP8, "vp8_cuvid");
        DECODERS.put(AV_CODEC_ID_MPEG4, "mpeg4_cuvid");
        DECODERS.put(AV_CODEC_ID_MJPEG, "mjpeg_cuvid");
    }

    private NvdecCodecs() {
    }

    /**
     * The NVDEC decoder's name for an FFmpeg codec id.
     *
     * @throws UnsupportedOperationException naming the codec when NVDEC has no decoder for it, or this
     *         FFmpeg build lacks it
     */
    public static String decoderFor(int codecId) {
        String name = DECODERS.get(codecId);
        if (name == null) {
            throw new UnsupportedOperationException("codec " + avcodec_get_name(codecId).getString()
                    + " has no NVDEC decoder (expected: one of " + String.join(", ", codecNames()) + ")");
        }
        if (avcodec_find_decoder_by_name(name) == null) {
            throw new UnsupportedOperationException("this FFmpeg build lacks the " + name + " decoder");
        }
        return name;
    }

    /** The codec ids with an NVDEC decoder, in the table's order. */
    public static Map<Integer, String> decoders() {
        return Map.copyOf(DECODERS);
    }

    /** Whether the bundled FFmpeg has the {@code scale_cuda} filter. */
    public static boolean hasScaleCuda() {
        return avfilter_get_by_name("scale_cuda") != null;
    }

    private static java.util.List<String> codecNames() {
        return DECODERS.keySet().stream().map(id -> avcodec_get_name(id).getString()).toList();
    }
}
