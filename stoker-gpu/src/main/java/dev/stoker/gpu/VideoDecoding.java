package dev.stoker.gpu;

import dev.stoker.video.Video;
import java.util.List;
import java.util.function.Supplier;

/**
 * How the NVDEC loader's decode stage gets a video's clips decoded from its worker threads: by the worker's own
 * decoder ({@link #perWorker}: NVDEC sessions, one a worker), or by handing the video to pools that take videos from
 * one queue ({@link HybridDecoding}: NVDEC sessions and CPU workers, each at its own rate). Thread-safe.
 */
interface VideoDecoding extends AutoCloseable {

    /** Decodes {@code clips} of {@code video} into their device buffers, complete on return. */
    DeviceClipDecoder.Decoded decode(Video video, List<DeviceClipDecoder.Target> clips);

    /** The pools' figures, for the stage table; none when the workers decode themselves. */
    default List<DecodePoolStats> pools() { return List.of(); }

    /** Frees every decoder made. */
    @Override
    void close();

    /** Each worker thread decodes with a decoder of its own, made on its first video and kept. */
    static VideoDecoding perWorker(Supplier<? extends DeviceClipDecoder> decoders) {
        PerThread<DeviceClipDecoder> own = new PerThread<>(decoders);
        return new VideoDecoding() {
            @Override
            public DeviceClipDecoder.Decoded decode(Video video, List<DeviceClipDecoder.Target> clips) {
                return own.get().decode(video, clips);
            }

            @Override
            public void close() {
                own.close();
            }
        };
    }
}
