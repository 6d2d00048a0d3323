package dev.stoker.store.format.internal;

import dev.stoker.store.IngestOptions;

/**
 * A way of storing samples in shards: how decoded frames become packets at ingest, and which FFmpeg
 * decoder reads them back (through {@link dev.stoker.video.Video#fromPackets}, so every format gets
 * the same frame-exact clip semantics). One class per format, made by {@link #named} with the name it goes by.
 */
public interface ShardFormat {
    /** The format this stores. */
    IngestOptions.Format name();

    /** Encodes every frame of {@code sample}; one instance per thread. */
    EncodedSample encode(DecodedSample sample, IngestOptions options);

    /**
     * True when every stored packet is an uncompressed RGB24 frame of the stored size, so a clip at that
     * size can be copied instead of decoded.
     */
    default boolean storesRgbFrames() { return false; }

    /** Whether stored frames must have even width and height (4:2:0 chroma). */
    default boolean needsEvenSize() { return false; }

    /** How {@code format} is written and read. */
    static ShardFormat named(IngestOptions.Format format) {
        return switch (format) {
            case VIDEO -> new VideoFormat(format);
            case JPEG -> new JpegFormat(format);
            case RAW -> new RawFormat(format);
        };
    }
}
