package dev.stoker.store.format.internal;

import dev.stoker.store.IngestOptions;

/** Decoded frames as they are: uint8 RGB24, one packet per frame. Largest; fastest to read. */
public record RawFormat(IngestOptions.Format name) implements ShardFormat {
    @Override
    public EncodedSample encode(DecodedSample sample, IngestOptions options) {
        PacketSink sink = new PacketSink((int) Math.min(Integer.MAX_VALUE - 64,
                (sample.frameBytes() + 64) * sample.frameCount()));
        for (int k = 0; k < sample.frameCount(); k++) {
            sink.add(sample.frame(k), sample.pts()[k], sample.durations()[k], true);
        }
        return sink.finish("rawvideo", "rgb24", sample, new byte[0]);
    }

    @Override
    public boolean storesRgbFrames() { return true; }
}
