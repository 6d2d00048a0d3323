package dev.stoker.video;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;

/**
 * A few open decoders kept by one thread, keyed by codec parameters: opening an H.264 decoder
 * costs far more than flushing one, and datasets are mostly one codec at one size.
 */
final class DecoderCache implements AutoCloseable {
    private final int capacity;
    private final int threads;
    private final AVBufferRef hardwareDevice;
    private final LinkedHashMap<DecoderKey, DecoderContext> open = new LinkedHashMap<>(8, 0.75f, true);

    /** {@code hardwareDevice}: decode with this FFmpeg device context (hwaccel); null for software decoding. */
    DecoderCache(int capacity, int threads, AVBufferRef hardwareDevice) {
        this.capacity = capacity;
        this.threads = threads;
        this.hardwareDevice = hardwareDevice;
    }

    /** A flushed decoder for {@code video}, opened when none matches. Stays owned by the cache. */
    DecoderContext acquire(Video video) {
        DecoderContext decoder = open.get(video.decoderKey());
        if (decoder != null) {
            decoder.reset();
            return decoder;
        }
        decoder = DecoderContext.open(video, threads, hardwareDevice);
        open.put(video.decoderKey(), decoder);
        if (open.size() > capacity) {
            Iterator<Map.Entry<DecoderKey, DecoderContext>> eldest = open.entrySet().iterator();
            DecoderContext evicted = eldest.next().getValue();
            eldest.remove();
            evicted.close();
        }
        return decoder;
    }

    /** Closes and forgets a decoder whose state can no longer be trusted. */
    void discard(Video video) {
        DecoderContext decoder = open.remove(video.decoderKey());
        if (decoder != null) {
            decoder.close();
        }
    }

    int size() { return open.size(); }

    @Override
    public void close() {
        for (DecoderContext decoder : open.values()) {
            decoder.close();
        }
        open.clear();
    }
}
