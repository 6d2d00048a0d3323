package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_AV1;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_HEVC;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_MJPEG;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_MPEG4;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP8;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP9;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_descriptor_get_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_hw_config;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_name;
import static org.bytedeco.ffmpeg.global.avfilter.avfilter_get_by_name;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;

import dev.stoker.loader.clip.VideoInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecDescriptor;
import org.bytedeco.ffmpeg.avcodec.AVCodecHWConfig;

/**
 * What of NVDEC the bundled FFmpeg offers, and which videos the GPU decode path takes: FFmpeg's own
 * decoders with the CUDA hwaccel ({@link #hasHwaccel}, what {@code ffmpeg -hwaccel cuda} uses and the NVDEC
 * loader decodes with), the {@code *_cuvid} wrapper decoders ({@link #decoderFor}), and the NVIDIA driver's
 * decoder library. Asking needs no device.
 */
public final class NvdecCodecs {
    /** The NVIDIA driver's NVDEC library, which FFmpeg loads when a CUDA hwaccel decoder starts. */
    public static final String DECODER_LIBRARY = "libnvcuvid.so.1";
    /** Pixel formats NVDEC decodes to NV12 surfaces, the kernel's input: 8-bit 4:2:0. */
    private static final Set<String> NV12_SOURCES = Set.of("yuv420p", "yuvj420p", "nv12", "unknown");
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

    /**
     * The smallest coded frame NVDEC decodes, by codec (NVIDIA Video Codec SDK, decoder capabilities: "Min width
     * x height"); smaller frames FFmpeg decodes in software. Seen on an H100: a 128x128 HEVC file came back in
     * host memory. Codecs not here: 48x16, smaller than any video a loader meets.
     */
    private static final Map<Integer, int[]> MIN_SIZES = Map.of(
            AV_CODEC_ID_HEVC, new int[] {144, 144},
            AV_CODEC_ID_VP9, new int[] {128, 128},
            AV_CODEC_ID_AV1, new int[] {128, 128});

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

    /**
     * Whether the decoder FFmpeg picks for {@code codecId} (the CPU path's) can decode on NVDEC: has a CUDA
     * hwaccel set up from a device context. Where it cannot, a decoder given a CUDA device decodes in software.
     */
    public static boolean hasHwaccel(int codecId) {
        AVCodec decoder = avcodec_find_decoder(codecId);
        if (decoder == null || decoder.isNull()) {
            return false;
        }
        for (int i = 0; ; i++) {
            AVCodecHWConfig config = avcodec_get_hw_config(decoder, i);
            if (config == null || config.isNull()) {
                return false;
            }
            if (config.device_type() == AV_HWDEVICE_TYPE_CUDA
                    && (config.methods() & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) != 0) {
                return true;
            }
        }
    }

    /**
     * Why the NVDEC path cannot decode this video, known before decoding: FFmpeg's decoder for the codec has
     * no CUDA hwaccel (this build's AV1 decoder is libaom-av1), the demuxer knows a pixel format that does not
     * decode to 8-bit NV12 (10-bit, 4:2:2, 4:4:4), the video is displayed rotated (the kernel does not turn
     * frames), or its frames are smaller than NVDEC's minimum for the codec; null when it can try. What the demuxer does not know (H.264 in MP4 leaves the pixel format to
     * the decoder; a profile NVDEC lacks) shows when the first frame comes back in host memory or as a 10-bit
     * surface, and the video then goes to the CPU fallback just the same.
     */
    public static String unsupportedReason(VideoInfo info) {
        AVCodecDescriptor codec = avcodec_descriptor_get_by_name(info.codec());
        if (codec == null || codec.isNull() || !hasHwaccel(codec.id())) {
            AVCodec decoder = codec == null || codec.isNull() ? null : avcodec_find_decoder(codec.id());
            return "codec " + info.codec() + ": " + (decoder == null || decoder.isNull() ? "no decoder"
                    : "its decoder here, " + decoder.name().getString() + ",") + " has no NVDEC hwaccel";
        }
        if (!NV12_SOURCES.contains(info.pixelFormat())) {
            return "pixel format " + info.pixelFormat() + " (the GPU path converts 8-bit 4:2:0 only)";
        }
        if (info.rotationDegrees() != 0) {
            return "display rotation " + info.rotationDegrees() + " degrees (the GPU kernel does not rotate)";
        }
        int[] min = MIN_SIZES.get(codec.id());
        if (min != null && (info.codedWidth() < min[0] || info.codedHeight() < min[1])) {
            return info.codedWidth() + "x" + info.codedHeight() + " " + info.codec() + " (NVDEC decodes " + info.codec()
                    + " from " + min[0] + "x" + min[1] + ")";
        }
        return null;
    }

    /**
     * Checks that the driver's NVDEC library loads, so that GPU decoding fails at once, naming it, rather than
     * silently decoding every video in software.
     *
     * @throws GpuUnavailableException naming the missing library
     */
    public static void requireDecoderLibrary() {
        requireDecoderLibrary(DECODER_LIBRARY);
    }

    /** {@link #requireDecoderLibrary()} for {@code library} (a parameter so tests can name one that is missing). */
    static void requireDecoderLibrary(String library) {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(library, arena);
        } catch (IllegalArgumentException e) {
            throw new GpuUnavailableException(library + " not found: the NVIDIA driver's video decoder library (NVDEC)"
                    + " is not installed, so NVDEC decoding cannot run", e);
        }
    }

    /** Whether the bundled FFmpeg has the {@code scale_cuda} filter. */
    public static boolean hasScaleCuda() {
        return avfilter_get_by_name("scale_cuda") != null;
    }

    private static java.util.List<String> codecNames() {
        return DECODERS.keySet().stream().map(id -> avcodec_get_name(id).getString()).toList();
    }
}
