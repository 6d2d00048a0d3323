package dev.stoker.store.format.internal;

import dev.stoker.store.IngestOptions;
import java.util.Map;

/**
 * H.264 (libopenh264, Constrained Baseline: no B-frames, so decode order is presentation order) with a
 * short GOP, so a clip decodes from a keyframe at most {@code gop - 1} frames before its start. Stored
 * as raw packets plus SPS/PPS extradata: reading needs no container.
 */
public record VideoFormat(IngestOptions.Format name) implements ShardFormat {
    /** Bits per pixel per frame: about 0.25 keeps small, busy frames close to the source. */
    private static final double BITS_PER_PIXEL = 0.25;

    @Override
    public EncodedSample encode(DecodedSample sample, IngestOptions options) {
        double fps = sample.framesPerSecond() > 0 ? sample.framesPerSecond() : 30;
        long bitsPerSecond = Math.max(100_000, Math.round(sample.width() * (double) sample.height() * fps * BITS_PER_PIXEL));
        try (PacketEncoder encoder = PacketEncoder.open("libopenh264", PacketEncoder.Chroma.YUV420P, sample,
                options.gopFrames(), bitsPerSecond, 0,
                Map.of("rc_mode", "bitrate", "allow_skip_frames", "0"))) {
            return encoder.encodeAll(sample, "h264", "yuv420p");
        }
    }

    @Override
    public boolean needsEvenSize() { return true; }
}
