package dev.stoker.store.format.internal;

import dev.stoker.store.IngestOptions;
import java.util.Map;

/** Every frame as a JPEG (FFmpeg's mjpeg, 4:2:0, full range), concatenated per sample: the GulpIO layout. */
public record JpegFormat(IngestOptions.Format name) implements ShardFormat {
    @Override
    public EncodedSample encode(DecodedSample sample, IngestOptions options) {
        try (PacketEncoder encoder = PacketEncoder.open("mjpeg", PacketEncoder.Chroma.YUVJ420P, sample, 1, 0,
                options.jpegQuality(), Map.of())) {
            return encoder.encodeAll(sample, "mjpeg", "yuvj420p");
        }
    }

    @Override
    public boolean needsEvenSize() { return true; }
}
