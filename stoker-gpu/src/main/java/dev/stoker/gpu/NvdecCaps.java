package dev.stoker.gpu;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decoder caps of one device, asked once per (codec, chroma, bit depth) and shared by every session: what NVDEC
 * decodes, between which sizes, and on how many engines ({@code nNumNVDECs}: the default session count).
 */
final class NvdecCaps {
    /** H.264 8-bit 4:2:0: what every NVDEC decodes; its engine count is the device's. */
    static final NvdecApi.CodecKey H264 = new NvdecApi.CodecKey(CuvidStructs.CODEC_H264, CuvidStructs.CHROMA_420, 0);

    private final NvdecApi api;
    private final Map<NvdecApi.CodecKey, NvdecApi.DecoderCaps> caps = new ConcurrentHashMap<>();

    NvdecCaps(NvdecApi api) {
        this.api = api;
    }

    NvdecApi.DecoderCaps of(NvdecApi.CodecKey key) {
        return caps.computeIfAbsent(key, api::decoderCaps);
    }

    /**
     * Why the stream the parser reports cannot go through the session (the CPU takes it), or null: the session draws
     * 8-bit 4:2:0 (NV12) with BT.601 or BT.709 colour, within the caps' sizes.
     */
    String refusal(NvdecApi.VideoFormat format) {
        NvdecApi.CodecKey key = format.key();
        if (key.chromaFormat() != CuvidStructs.CHROMA_420 || key.bitDepthMinus8() != 0) {
            return (key.bitDepthMinus8() + 8) + "-bit " + chroma(key.chromaFormat())
                    + " (the GPU path converts 8-bit 4:2:0, NV12, only)";
        }
        if (format.matrix() == 9 || format.matrix() == 10) {
            return "BT.2020 colour (the GPU kernel converts BT.601 and BT.709)";
        }
        String refusal = of(key).refusal(format.codedWidth(), format.codedHeight());
        return refusal == null ? null : "NVDEC: " + refusal;
    }

    private static String chroma(int format) {
        return switch (format) {
            case 0 -> "monochrome";
            case 1 -> "4:2:0";
            case 2 -> "4:2:2";
            case 3 -> "4:4:4";
            default -> "chroma format " + format;
        };
    }

    /** NVDEC engines on the device (at least 1). */
    int engines() {
        return Math.max(1, of(H264).engines());
    }

    /** Keys asked so far (for tests: each is asked once). */
    int keysAsked() { return caps.size(); }
}
