package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT2020_CL;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT2020_NCL;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_NV12;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_get_pix_fmt_name;
import static org.bytedeco.ffmpeg.global.avutil.av_hwdevice_ctx_create;

import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Ffmpeg;
import dev.stoker.video.FfmpegNatives;
import dev.stoker.video.internal.FrameWriter;
import dev.stoker.video.Video;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVHWFramesContext;

/**
 * Decodes clips on the GPU's NVDEC engines into device clip buffers. FFmpeg's own decoder for the codec
 * runs with a CUDA device context (the {@code ffmpeg -hwaccel cuda} path): its hwaccel decodes on NVDEC and
 * hands back frames as NV12 surfaces in device memory. Frame selection is the CPU path's
 * ({@link ClipDecoder}: same clip specs, seeking, frame-exact timestamps, skipping of unneeded frames); only
 * the drawing differs: the {@link Nv12Kernel} converts each wanted surface to RGB, cropped and resized as
 * {@link Resize#sourceWindow} says, straight into its slot of the clip buffer.
 *
 * <p>One per worker thread; its decoders (NVDEC sessions) are reused from video to video of the same codec
 * parameters. FFmpeg's device context uses the device's primary context, the one {@link CudaDevice} uses.
 *
 * <p>Videos NVDEC cannot decode (codec, pixel format, rotation, BT.2020 colour; or a profile it lacks, which
 * shows as frames coming back in host memory) are decoded on the CPU instead and copied up, when a
 * fallback is given; else they fail with reason {@code unsupported-codec}. Corrupt videos fail as on the
 * CPU (reason {@code corrupt}, ...), without a second attempt.
 *
 * <p><b>Unverified:</b> written against FFmpeg's and the driver's documented behaviour; no GPU was at hand
 * to run it. Its hardware tests skip without one.
 */
final class NvdecDecoder implements DeviceClipDecoder {
    /** FFmpeg's {@code hwcontext_cuda} option: use the device's primary context (shared with ours). */
    private static final String PRIMARY_CONTEXT_OPTION = "primary_ctx";
    /** The legacy default stream: FFmpeg copies decoded pictures into its surfaces there, so kernels after them. */
    private static final long LEGACY_STREAM = 0;

    private final String deviceId;
    private final SurfaceDrawer drawer;
    private final BatchShape clipShape;
    private final AVBufferRef hardwareDevice;
    private final ClipDecoder decoder;
    private final CpuFallback fallback;
    private final TraceRecorder trace;
    private long framesConverted;

    /**
     * Draws NV12 surfaces into device memory and waits for what it queued: the {@link Nv12Kernel} on a device
     * ({@link #on}); a fake in tests.
     */
    interface SurfaceDrawer {
        /** Queues the conversion of one NV12 surface ({@code y}, {@code uv} planes) of {@code window} into {@code destination}. */
        void draw(long y, int yPitch, long uv, int uvPitch, int width, int height, Resize.Window window,
                  Nv12Kernel.Destination destination, int colour);

        /** Waits for every draw queued so far. */
        void finish();

        /** The kernel on {@code device}'s legacy default stream, after FFmpeg's copies into its surfaces. */
        static SurfaceDrawer on(CudaDevice device, Nv12Kernel kernel) {
            return new SurfaceDrawer() {
                @Override
                public void draw(long y, int yPitch, long uv, int uvPitch, int width, int height, Resize.Window window,
                                 Nv12Kernel.Destination destination, int colour) {
                    kernel.launch(y, yPitch, uv, uvPitch, width, height, window.x(), window.y(), window.width(),
                            window.height(), destination, colour, LEGACY_STREAM);
                }

                @Override
                public void finish() {
                    device.bind();
                    device.driver().call(CudaDriver.HandleCall.STREAM_SYNCHRONIZE, LEGACY_STREAM);
                }
            };
        }
    }

    /**
     * @param hardwareDevice FFmpeg's device context to decode with (the decoder takes its own reference; this
     *                       one is released on close); null decodes in software, whose frames then all go to the
     *                       fallback (tests)
     */
    NvdecDecoder(String deviceId, AVBufferRef hardwareDevice, SurfaceDrawer drawer, BatchShape clipShape,
                 boolean skipNonReferenceFrames, Supplier<? extends DeviceClipDecoder> fallbackFactory,
                 TraceRecorder trace) {
        this.deviceId = deviceId;
        this.drawer = drawer;
        this.clipShape = clipShape;
        this.hardwareDevice = hardwareDevice;
        this.fallback = new CpuFallback(fallbackFactory);
        this.trace = trace;
        this.decoder = new ClipDecoder(skipNonReferenceFrames, hardwareDevice, this::write);
    }

    /**
     * A decoder for clips of {@code clipShape} (one clip: frames, size, layout) on {@code device}.
     *
     * @param fallback makes the CPU decoder for videos NVDEC cannot decode (on first need); null: they fail
     * @throws GpuUnavailableException if FFmpeg cannot open the CUDA device
     */
    static NvdecDecoder open(CudaDevice device, Nv12Kernel kernel, BatchShape clipShape, boolean skipNonReferenceFrames,
                             Supplier<? extends DeviceClipDecoder> fallback, TraceRecorder trace) {
        AVBufferRef context = createDeviceContext(device);
        try {
            return new NvdecDecoder(device.id(), context, SurfaceDrawer.on(device, kernel), clipShape,
                    skipNonReferenceFrames, fallback, trace);
        } catch (RuntimeException | Error e) {
            av_buffer_unref(context);
            throw e;
        }
    }

    /** FFmpeg's CUDA device context on {@code device}'s primary context. */
    private static AVBufferRef createDeviceContext(CudaDevice device) {
        FfmpegNatives.ready();
        String ordinal = device.id().substring(device.id().indexOf(':') + 1);
        AVDictionary options = new AVDictionary(null);
        av_dict_set(options, PRIMARY_CONTEXT_OPTION, "1", 0);
        AVBufferRef ref = new AVBufferRef(null);
        int result = av_hwdevice_ctx_create(ref, AV_HWDEVICE_TYPE_CUDA, ordinal, options, 0);
        av_dict_free(options);
        if (result < 0) {
            throw new GpuUnavailableException("FFmpeg cannot open CUDA device " + device.id() + ": " + Ffmpeg.errorText(result)
                    + " (av_hwdevice_ctx_create)");
        }
        return ref;
    }

    @Override
    public Decoded decode(Video video, List<Target> clips) {
        String unsupported = NvdecCodecs.unsupportedReason(video.info());
        if (unsupported != null) {
            return onCpu(video, clips, unsupported);
        }
        List<ClipRequest> requests = new ArrayList<>(clips.size());
        for (Target t : clips) {
            requests.add(new ClipRequest(t.spec(), t.resize(), deviceView(t.devicePointer(), t.bytes())));
        }
        long startNanos = System.nanoTime();
        long converted = framesConverted;
        List<DecodedClip> decoded;
        try {
            try {
                decoded = decoder.decode(video, requests);
            } finally {
                // Kernels still queued write into these buffers: done before they are read or handed back.
                drawer.finish();
            }
        } catch (NotOnNvdec e) {
            return onCpu(video, clips, e.getMessage());
        }
        if (trace != null) {
            int frames = decoded.stream().mapToInt(DecodedClip::decodedFrames).sum();
            trace.slice("NVDEC decode", "gpu", Thread.currentThread(), startNanos, System.nanoTime() - startNanos, -1,
                    video.info().path() + ": " + clips.size() + " clip(s), " + frames + " frames decoded, "
                            + (framesConverted - converted) + " converted on " + deviceId);
        }
        return new Decoded(decoded, null);
    }

    private Decoded onCpu(Video video, List<Target> clips, String reason) {
        DeviceClipDecoder cpu = fallback.decoderFor(video, reason);
        long startNanos = System.nanoTime();
        Decoded decoded = cpu.decode(video, clips);
        if (trace != null) {
            trace.slice("CPU fallback decode", "gpu", Thread.currentThread(), startNanos, System.nanoTime() - startNanos,
                    -1, video.info().path() + ": " + reason);
        }
        return new Decoded(decoded.clips(), reason);
    }

    /** Draws one wanted frame into its slot: the {@link FrameWriter} the clip decoder calls. */
    private void write(AVFrame frame, FrameWriter.Target target) {
        if (frame.format() != AV_PIX_FMT_CUDA) {
            throw new NotOnNvdec("frames came back as " + pixelFormat(frame.format()) + " in host memory: NVDEC"
                    + " cannot decode this stream (FFmpeg decoded it in software)");
        }
        int surfaces = new AVHWFramesContext(frame.hw_frames_ctx().data()).sw_format();
        if (surfaces != AV_PIX_FMT_NV12) {
            throw new NotOnNvdec(pixelFormat(surfaces) + " surfaces (the GPU path converts 8-bit 4:2:0, NV12, only)");
        }
        if (frame.colorspace() == AVCOL_SPC_BT2020_NCL || frame.colorspace() == AVCOL_SPC_BT2020_CL) {
            throw new NotOnNvdec("BT.2020 colour (the GPU kernel converts BT.601 and BT.709)");
        }
        ClipRequest request = target.request();
        Resize.Window window = request.resize().sourceWindow(target.rotationDegrees(), frame.width(), frame.height(),
                target.framing(), target.outWidth(), target.outHeight(), 1, 1);
        Nv12Kernel.Destination destination = Nv12Kernel.Destination.of(request.destination().address(),
                clipShape.layout(), clipShape.frames(), target.outHeight(), target.outWidth(), 0, target.slot());
        if (target.framing().mirrored()) {
            destination = destination.mirrored();
        }
        drawer.draw(frame.data(0).address(), frame.linesize(0), frame.data(1).address(), frame.linesize(1),
                frame.width(), frame.height(), window, destination,
                Nv12Kernel.colourFlags(frame.colorspace(), frame.color_range()));
        framesConverted++;
    }

    /** Device memory as a segment, for the clip decoder's size checks only: never read or written from Java. */
    @SuppressWarnings("restricted")
    private static MemorySegment deviceView(long pointer, long bytes) {
        return MemorySegment.ofAddress(pointer).reinterpret(bytes);
    }

    @Override
    public void close() {
        try {
            decoder.close();
            fallback.close();
        } finally {
            if (hardwareDevice != null) {
                av_buffer_unref(hardwareDevice);
            }
        }
    }

    private static String pixelFormat(int format) {
        var name = av_get_pix_fmt_name(format);
        return name == null ? "pixel format " + format : name.getString();
    }
}
