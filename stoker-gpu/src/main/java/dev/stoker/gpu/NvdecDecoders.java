package dev.stoker.gpu;

import java.util.HashMap;
import java.util.Map;

/**
 * One session's NVDEC decoders, one per (codec, chroma, bit depth), kept for the session's life and reused from video
 * to video and seek to seek: a new coded size within the decoder's maximum is a {@code cuvidReconfigureDecoder}, the
 * same one nothing at all. A decoder is made anew only for a size beyond its maximum (which starts at 1920x1088, so a
 * dataset up to 1080p never grows it) or for more decode surfaces than it was made with. Making one costs far more
 * than decoding a clip (SPDL measured ~300 ms a create and destroy), which is why nothing here destroys to flush.
 */
final class NvdecDecoders implements AutoCloseable {
    /** The smallest maximum a decoder is made with: 1080p, as coded (16-line macroblocks). */
    static final int DEFAULT_MAX_WIDTH = 1920;
    static final int DEFAULT_MAX_HEIGHT = 1088;
    /** NVDEC's decode surfaces for one decoder, at most. */
    static final int MAX_DECODE_SURFACES = 32;
    /** Decode surfaces when the parser gives no minimum (DALI's and torchcodec's fallback). */
    static final int FALLBACK_DECODE_SURFACES = 20;

    private final NvdecApi api;
    private final Map<NvdecApi.CodecKey, Decoder> decoders = new HashMap<>();
    long creations;
    long reconfigurations;

    /** A decoder and what it was last set up for. */
    record Decoder(long handle, NvdecApi.DecoderConfig config, int createdSurfaces) {
    }

    NvdecDecoders(NvdecApi api) {
        this.api = api;
    }

    /**
     * The decoder for {@code format}, set up for it: made, reconfigured or as it was.
     *
     * @param displayDelay the parser's display delay: that many more decode surfaces than the stream's minimum
     * @param outputs      output surfaces (pictures mapped at once) a new decoder gets
     */
    Decoder setUp(NvdecApi.VideoFormat format, int displayDelay, int outputs) {
        int minimum = format.minSurfaces() == 0 ? FALLBACK_DECODE_SURFACES : format.minSurfaces();
        int surfaces = Math.min(MAX_DECODE_SURFACES, minimum + displayDelay);
        Decoder existing = decoders.get(format.key());
        boolean fits = existing != null && format.codedWidth() <= existing.config().maxWidth()
                && format.codedHeight() <= existing.config().maxHeight() && surfaces <= existing.createdSurfaces();
        if (!fits) {
            int maxWidth = Math.max(format.codedWidth(), existing == null ? DEFAULT_MAX_WIDTH : existing.config().maxWidth());
            int maxHeight = Math.max(format.codedHeight(), existing == null ? DEFAULT_MAX_HEIGHT : existing.config().maxHeight());
            NvdecApi.DecoderConfig config = config(format, maxWidth, maxHeight, surfaces, outputs);
            if (existing != null) {
                decoders.remove(format.key());
                api.destroyDecoder(existing.handle());
            }
            Decoder made = new Decoder(api.createDecoder(config), config, surfaces);
            creations++;
            decoders.put(format.key(), made);
            return made;
        }
        NvdecApi.DecoderConfig wanted = config(format, existing.config().maxWidth(), existing.config().maxHeight(), surfaces,
                existing.config().outputs());
        if (wanted.equals(existing.config())) {
            return existing;
        }
        api.reconfigureDecoder(existing.handle(), wanted);
        reconfigurations++;
        Decoder reconfigured = new Decoder(existing.handle(), wanted, existing.createdSurfaces());
        decoders.put(format.key(), reconfigured);
        return reconfigured;
    }

    private static NvdecApi.DecoderConfig config(NvdecApi.VideoFormat f, int maxWidth, int maxHeight, int surfaces,
                                                 int outputs) {
        return new NvdecApi.DecoderConfig(f.key(), f.codedWidth(), f.codedHeight(), maxWidth, maxHeight, f.displayLeft(),
                f.displayTop(), f.displayRight(), f.displayBottom(), surfaces, outputs);
    }

    int size() { return decoders.size(); }

    /** Destroys every decoder (all of them even when one fails; then throws the first failure). */
    @Override
    public void close() {
        try {
            Closeables.releaseAll(decoders.values(), d -> api.destroyDecoder(d.handle()));
        } finally {
            decoders.clear();
        }
    }
}
