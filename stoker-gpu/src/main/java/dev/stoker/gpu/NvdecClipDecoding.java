package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.Video;
import java.util.List;

/**
 * The NVDEC loader's decoding without the loader: its kernel loaded once on a device, the decode API opened, and NVDEC
 * sessions ({@link NvdecSession}, with FFmpeg's NVDEC for the codecs it does not cover) that decode one clip of a
 * video into a device buffer, as the loader's workers do; and the decode-only ceiling. The door the GPU
 * micro-benchmark (stoker-bench's {@code GpuBench}) measures the decoder through.
 */
public final class NvdecClipDecoding implements AutoCloseable {
    private final CudaDevice device;
    private final BatchShape clipShape;
    private final Nv12Kernel kernel;
    private final DriverNvdecApi api;
    private final NvdecCaps caps;

    private NvdecClipDecoding(CudaDevice device, BatchShape clipShape) {
        this.device = device;
        this.clipShape = clipShape;
        this.kernel = Nv12Kernel.load(device);
        try {
            this.api = DriverNvdecApi.open(device, kernel);
        } catch (RuntimeException | Error e) {
            kernel.close();
            throw e;
        }
        this.caps = new NvdecCaps(api);
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

    /** NVDEC engines on the device, as its decoder caps report them ({@code nNumNVDECs}). */
    public int engines() { return caps.engines(); }

    /** A session of its own (no CPU fallback) for one thread; close it. */
    public Session session() {
        NvdecSession session = new NvdecSession(api, caps, device.id(), clipShape, true, null);
        return new Session(session, new NvdecRouter(session,
                () -> NvdecDecoder.open(device, kernel, clipShape, true, null, null), null));
    }

    /** Unloads the kernel (close the sessions first). */
    @Override
    public void close() {
        kernel.close();
    }

    /** One NVDEC session; not thread-safe. */
    public static final class Session implements AutoCloseable {
        private final NvdecSession session;
        private final NvdecRouter decoder;

        private Session(NvdecSession session, NvdecRouter decoder) {
            this.session = session;
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

        /**
         * The NVDEC ceiling: {@code pictures} pictures of {@code video} (from its start, again when shorter) decoded
         * and nothing else: nothing skipped, mapped, converted or copied.
         *
         * @return the pictures decoded
         * @throws IllegalArgumentException for a video the session does not decode itself (not H.264/HEVC 8-bit 4:2:0)
         */
        public long decodeOnly(Video video, long pictures) {
            return session.decodeOnly(video, pictures);
        }

        /** How the session's pictures went: decoded, skipped (unwanted, unreferenced), mapped; host waits. */
        public String counts() {
            NvdecCounters c = session.counters;
            return "videos " + c.videos + ", pictures decoded " + c.picturesDecoded + ", skipped " + c.picturesSkipped
                    + ", frames mapped " + c.framesMapped + ", clip launches " + c.clipLaunches + ", host waits "
                    + c.hostWaits + ", decoders made " + session.decoders().creations + ", reconfigured "
                    + session.decoders().reconfigurations;
        }

        @Override
        public void close() {
            decoder.close();
        }
    }
}
