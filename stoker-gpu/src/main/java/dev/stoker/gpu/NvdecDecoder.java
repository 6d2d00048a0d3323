package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_NV12;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_ref;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_get_pix_fmt_name;
import static org.bytedeco.ffmpeg.global.avutil.av_hwdevice_ctx_create;
import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

import dev.stoker.video.batch.BatchLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVHWFramesContext;

/**
 * NVDEC decoding of one video file through the bundled FFmpeg's {@code *_cuvid} decoders: frames stay in
 * device memory (NV12 surfaces), and the {@link Nv12Kernel} converts the wanted ones to RGB, cropped and
 * resized, straight into a device batch. One decoder per thread, like the CPU path; FFmpeg's CUDA device
 * context is made once per thread on the device's primary context, the one {@link CudaDevice} uses.
 *
 * <p>Resizing: the bundled FFmpeg has {@code scale_cuda} ({@link NvdecCodecs#hasScaleCuda()}), but it
 * writes NV12/YUV or 4-byte RGB0 surfaces, never the 3-byte RGB of a batch in NTHWC or NCTHW, so a
 * kernel pass is needed anyway; the kernel crops and resizes in that same pass instead.
 *
 * <p><b>Unverified:</b> written against FFmpeg's and the driver's documented behaviour; no GPU was at hand
 * to run it. Its tests skip without one. Decodes from the start of the file (no seeking yet).
 */
public final class NvdecDecoder implements AutoCloseable {
    /** FFmpeg's {@code hwcontext_cuda} option: use the device's primary context (shared with ours). */
    private static final String PRIMARY_CONTEXT_OPTION = "primary_ctx";
    private static final ThreadLocal<Map<String, AVBufferRef>> THREAD_DEVICE_CONTEXTS = ThreadLocal.withInitial(HashMap::new);
    private static final Map<CudaDevice, Nv12Kernel> KERNELS = new java.util.concurrent.ConcurrentHashMap<>();

    private final Path file;
    private final CudaDevice device;
    private final AVFormatContext format;
    private final AVCodecContext codec;
    private final int streamIndex;
    private final String decoderName;
    private final Nv12Kernel kernel;

    private NvdecDecoder(Path file, CudaDevice device, AVFormatContext format, AVCodecContext codec, int streamIndex,
                         String decoderName, Nv12Kernel kernel) {
        this.file = file;
        this.device = device;
        this.format = format;
        this.codec = codec;
        this.streamIndex = streamIndex;
        this.decoderName = decoderName;
        this.kernel = kernel;
    }

    /**
     * Opens {@code file}'s best video stream with the NVDEC decoder for its codec.
     *
     * @throws GpuUnavailableException if there is no driver or device, or FFmpeg cannot open CUDA
     * @throws UnsupportedOperationException if NVDEC has no decoder for the codec
     */
    public static NvdecDecoder open(Path file, CudaDevice device) {
        AVBufferRef hwDevice = threadDeviceContext(device);
        AVFormatContext format = new AVFormatContext(null);
        check(avformat_open_input(format, file.toString(), null, null), file, "avformat_open_input");
        AVCodecContext codec = null;
        try {
            check(avformat_find_stream_info(format, (AVDictionary) null), file, "avformat_find_stream_info");
            int stream = check(av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, (AVCodec) null, 0), file,
                    "av_find_best_stream");
            AVStream s = format.streams(stream);
            String name = NvdecCodecs.decoderFor(s.codecpar().codec_id());
            AVCodec decoder = avcodec_find_decoder_by_name(name);
            codec = avcodec_alloc_context3(decoder);
            check(avcodec_parameters_to_context(codec, s.codecpar()), file, "avcodec_parameters_to_context");
            codec.hw_device_ctx(av_buffer_ref(hwDevice));
            check(avcodec_open2(codec, decoder, (AVDictionary) null), file, "avcodec_open2 " + name);
            Nv12Kernel kernel = KERNELS.computeIfAbsent(device, Nv12Kernel::load);
            return new NvdecDecoder(file, device, format, codec, stream, name, kernel);
        } catch (RuntimeException | Error e) {
            if (codec != null) {
                avcodec_free_context(codec);
            }
            avformat_close_input(format);
            throw e;
        }
    }

    /** FFmpeg's CUDA device context for this thread, made on first use. */
    static AVBufferRef threadDeviceContext(CudaDevice device) {
        return THREAD_DEVICE_CONTEXTS.get().computeIfAbsent(device.id(), id -> {
            String ordinal = id.substring(id.indexOf(':') + 1);
            AVDictionary options = new AVDictionary(null);
            av_dict_set(options, PRIMARY_CONTEXT_OPTION, "1", 0);
            AVBufferRef ref = new AVBufferRef(null);
            int result = av_hwdevice_ctx_create(ref, AV_HWDEVICE_TYPE_CUDA, ordinal, options, 0);
            av_dict_free(options);
            if (result < 0) {
                throw new GpuUnavailableException("FFmpeg cannot open CUDA device " + id + ": " + errorText(result)
                        + " (av_hwdevice_ctx_create)");
            }
            return ref;
        });
    }

    /** The NVDEC decoder in use, e.g. {@code h264_cuvid}. */
    public String decoderName() {
        return decoderName;
    }

    /**
     * Decodes from the start and converts the frames at {@code frameIndices} (ascending, in decode output
     * order) into frames {@code 0..n-1} of clip {@code clip} of the device batch at {@code batchPointer},
     * short side resized and centre-cropped to {@code width} × {@code height}. Returns the frames decoded;
     * the conversions are complete on return.
     *
     * @throws IllegalStateException if the file ends before the last wanted frame
     */
    public int decodeClip(int[] frameIndices, long batchPointer, BatchLayout layout, int clip, int height, int width) {
        for (int i = 1; i < frameIndices.length; i++) {
            if (frameIndices[i] < frameIndices[i - 1]) {
                throw new IllegalArgumentException("frameIndices: not ascending at " + i + " (expected: ascending)");
            }
        }
        int frames = frameIndices.length;
        AVPacket packet = av_packet_alloc();
        AVFrame frame = av_frame_alloc();
        int wanted = 0;
        int index = 0;
        boolean draining = false;
        try {
            while (wanted < frames) {
                if (!draining) {
                    int read = av_read_frame(format, packet);
                    if (read == AVERROR_EOF) {
                        draining = true;
                        check(avcodec_send_packet(codec, null), file, "avcodec_send_packet (flush)");
                    } else {
                        check(read, file, "av_read_frame");
                        if (packet.stream_index() == streamIndex) {
                            check(avcodec_send_packet(codec, packet), file, "avcodec_send_packet");
                        }
                        av_packet_unref(packet);
                    }
                }
                int received;
                while (wanted < frames && (received = avcodec_receive_frame(codec, frame)) >= 0) {
                    while (wanted < frames && frameIndices[wanted] == index) {
                        convert(frame, Nv12Kernel.Destination.of(batchPointer, layout, frames, height, width, clip, wanted));
                        wanted++;
                    }
                    index++;
                    av_frame_unref(frame);
                }
                if (draining && wanted < frames) {
                    throw new IllegalStateException(file + ": " + index + " frames, frame " + frameIndices[wanted]
                            + " wanted (expected: frame indices below the frame count)");
                }
            }
            // The kernels ran on the legacy default stream, ordered after FFmpeg's copies into its surfaces.
            device.bind();
            device.driver().streamSynchronize(0);
            return index;
        } finally {
            av_frame_free(frame);
            av_packet_free(packet);
        }
    }

    private void convert(AVFrame frame, Nv12Kernel.Destination dst) {
        if (frame.format() != AV_PIX_FMT_CUDA) {
            throw new IllegalStateException(file + ": " + decoderName + " gave " + pixelFormat(frame.format())
                    + " frames (expected: cuda frames in device memory)");
        }
        int softwareFormat = new AVHWFramesContext(frame.hw_frames_ctx().data()).sw_format();
        if (softwareFormat != AV_PIX_FMT_NV12) {
            throw new UnsupportedOperationException(file + ": " + pixelFormat(softwareFormat)
                    + " surfaces (expected: nv12; 10-bit video is not supported on the GPU path yet)");
        }
        float[] crop = centerCrop(frame.width(), frame.height(), dst.width(), dst.height());
        kernel.launch(frame.data(0).address(), frame.linesize(0), frame.data(1).address(), frame.linesize(1),
                frame.width(), frame.height(), crop[0], crop[1], crop[2], crop[3], dst,
                frame.colorspace() == AVCOL_SPC_BT709, 0);
    }

    /**
     * The source window {@code [x, y, width, height]} that a short-side resize to cover
     * {@code dstWidth × dstHeight} followed by a centre crop takes from a {@code srcWidth × srcHeight} frame.
     */
    static float[] centerCrop(int srcWidth, int srcHeight, int dstWidth, int dstHeight) {
        double srcAspect = (double) srcWidth / srcHeight;
        double dstAspect = (double) dstWidth / dstHeight;
        if (srcAspect > dstAspect) {
            float w = (float) (srcHeight * dstAspect);
            return new float[] {(srcWidth - w) / 2f, 0f, w, srcHeight};
        }
        float h = (float) (srcWidth / dstAspect);
        return new float[] {0f, (srcHeight - h) / 2f, srcWidth, h};
    }

    @Override
    public void close() {
        avcodec_free_context(codec);
        avformat_close_input(format);
    }

    private static int check(int result, Path file, String operation) {
        if (result < 0) {
            throw new IllegalStateException(file + ": " + operation + " failed: " + errorText(result));
        }
        return result;
    }

    private static String pixelFormat(int format) {
        var name = av_get_pix_fmt_name(format);
        return name == null ? "pixel format " + format : name.getString();
    }

    /** FFmpeg's text for an error code, cut at the first NUL. */
    static String errorText(int code) {
        byte[] buffer = new byte[256];
        if (av_strerror(code, buffer, buffer.length) < 0) {
            return "error " + code;
        }
        int end = 0;
        while (end < buffer.length && buffer[end] != 0) {
            end++;
        }
        return new String(buffer, 0, end, StandardCharsets.UTF_8) + " (" + code + ")";
    }
}
