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

    /** NVDEC engines on the device (at least 1). */
    int engines() {
        return Math.max(1, of(H264).engines());
    }

    /** Keys asked so far (for tests: each is asked once). */
    int keysAsked() {
        return caps.size();
    }
}
