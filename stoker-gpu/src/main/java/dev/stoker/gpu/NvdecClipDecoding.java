package dev.stoker.gpu;

import dev.stoker.video.ClipSpec;
import dev.stoker.video.Resize;
import dev.stoker.video.Video;
import dev.stoker.video.batch.BatchShape;
import java.util.List;
import java.util.function.Supplier;

/**
 * The NVDEC loader's decoding without the loader: its kernel loaded once on a device, and NVDEC sessions that
 * decode one clip of a video into a device buffer, as the {@code nvdec} stage does. The door the GPU
 * micro-benchmark (stoker-bench's {@code GpuBench}) measures the decoder through.
 */
public final class NvdecClipDecoding implements AutoCloseable {
    private final Nv12Kernel kernel;
    private final Supplier<NvdecDecoder> sessions;

    private NvdecClipDecoding(CudaDevice device, BatchShape clipShape) {
        this.kernel = Nv12Kernel.load(device);
        this.sessions = () -> NvdecDecoder.open(device, kernel, clipShape, true, null, null);
    }

    /**
     * Loads the kernel on {@code device} for clips of {@code clipShape} (one clip: frames, size, layout).
     *
     * @throws GpuUnavailableException if the driver's NVDEC library is missing
     */
    public static NvdecClipDecoding open(CudaDevice device, BatchShape clipShape) {
        NvdecCodecs.requireDecoderLibrary();
        return new NvdecClipDecoding(device, clipShape);
    }

    /** A session of its own (one NVDEC decoder, no CPU fallback) for one thread; close it. */
    public Session session() {
        return new Session(sessions.get());
    }

    /** Unloads the kernel (close the sessions first). */
    @Override
    public void close() {
        kernel.close();
    }

    /** One NVDEC session; not thread-safe. */
    public static final class Session implements AutoCloseable {
        private final NvdecDecoder decoder;

        private Session(NvdecDecoder decoder) {
            this.decoder = decoder;
        }

        /**
         * Decodes the frames {@code spec} selects from {@code video}, resized by {@code resize}, into
         * {@code target} (at least the clip's bytes), complete on return.
         *
         * @return the frames the decoder decoded, output or not
         */
        public long decode(Video video, ClipSpec spec, Resize resize, DeviceMemory target) {
            List<DeviceClipDecoder.Target> targets =
                    List.of(new DeviceClipDecoder.Target(spec, resize, target.pointer(), target.byteSize()));
            return decoder.decode(video, targets).clips().getFirst().decodedFrames();
        }

        @Override
        public void close() {
            decoder.close();
        }
    }
}
