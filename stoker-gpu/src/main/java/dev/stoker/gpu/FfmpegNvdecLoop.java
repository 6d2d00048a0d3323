package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
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
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_ref;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_hwdevice_ctx_create;

import dev.stoker.video.Ffmpeg;
import dev.stoker.video.FfmpegNatives;
import java.nio.file.Path;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;

/**
 * The NVDEC ceiling: FFmpeg's own NVDEC decoding (its {@code cuda} hwaccel, frames left on the device, as
 * {@code ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i FILE -f null -} does) in a bare loop: read a packet,
 * send it, take the frames, drop them. No pipeline, no conversion, no resize: what NVDEC and FFmpeg alone give on
 * this machine, which stoker-bench's {@code GpuBench nvdec} (Stoker's decoder, its NV12-to-RGB kernel and resize)
 * is measured against. It needs no ffmpeg program, which a GPU machine may lack. It lives here, beside the
 * decoder it bounds, because it calls FFmpeg itself, which stoker-bench never does.
 */
public final class FfmpegNvdecLoop implements AutoCloseable {
    /** AVERROR(EAGAIN) on Linux, which the presets do not export. */
    private static final int EAGAIN = -11;

    private final AVBufferRef cudaDevice;

    /** FFmpeg's CUDA device on {@code ordinal}, in the driver's primary context (as {@link NvdecDecoder}). */
    public FfmpegNvdecLoop(int ordinal) {
        FfmpegNatives.ready();
        AVDictionary options = new AVDictionary(null);
        av_dict_set(options, "primary_ctx", "1", 0);
        cudaDevice = new AVBufferRef(null);
        int result = av_hwdevice_ctx_create(cudaDevice, AV_HWDEVICE_TYPE_CUDA, Integer.toString(ordinal), options, 0);
        av_dict_free(options);
        if (result < 0) {
            throw new GpuUnavailableException("FFmpeg cannot open CUDA device " + ordinal + ": " + Ffmpeg.errorText(result));
        }
    }

    /**
     * Decodes the first {@code frames} frames of {@code file} (fewer if it is shorter).
     *
     * @return the frames decoded; all of them on the device, else an {@link IllegalStateException} (FFmpeg fell
     *     back to software decoding: then this is no NVDEC figure)
     */
    public long decode(Path file, int frames) {
        AVFormatContext format = new AVFormatContext(null);
        check(avformat_open_input(format, file.toString(), null, null), file, "avformat_open_input");
        AVCodecContext context = null;
        AVPacket packet = av_packet_alloc();
        AVFrame frame = av_frame_alloc();
        try {
            check(avformat_find_stream_info(format, (AVDictionary) null), file, "avformat_find_stream_info");
            int stream = check(av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, (AVCodec) null, 0), file,
                    "av_find_best_stream");
            AVCodec codec = avcodec_find_decoder(format.streams(stream).codecpar().codec_id());
            if (codec == null || codec.isNull()) {
                throw new IllegalStateException(file + ": this FFmpeg build has no decoder for codec id "
                        + format.streams(stream).codecpar().codec_id());
            }
            context = avcodec_alloc_context3(codec);
            check(avcodec_parameters_to_context(context, format.streams(stream).codecpar()), file, "parameters");
            context.hw_device_ctx(av_buffer_ref(cudaDevice));
            check(avcodec_open2(context, codec, (AVDictionary) null), file, "avcodec_open2");
            long decoded = 0;
            boolean draining = false;
            while (decoded < frames) {
                if (!draining) {
                    int read = av_read_frame(format, packet);
                    if (read < 0) {
                        draining = true;
                        avcodec_send_packet(context, null);
                    } else {
                        if (packet.stream_index() == stream) {
                            check(avcodec_send_packet(context, packet), file, "avcodec_send_packet");
                        }
                        av_packet_unref(packet);
                    }
                }
                int received;
                while ((received = avcodec_receive_frame(context, frame)) >= 0) {
                    if (frame.format() != AV_PIX_FMT_CUDA) {
                        throw new IllegalStateException(file + ": FFmpeg decoded it in software, not on NVDEC");
                    }
                    decoded++;
                    av_frame_unref(frame);
                }
                if (draining && received != EAGAIN) {
                    break;   // end of stream: the decoder is empty
                }
            }
            return decoded;
        } finally {
            av_frame_free(frame);
            av_packet_free(packet);
            if (context != null) {
                avcodec_free_context(context);
            }
            avformat_close_input(format);
        }
    }

    private static int check(int result, Path file, String call) {
        if (result < 0) {
            throw new IllegalStateException(file + ": " + call + ": " + Ffmpeg.errorText(result));
        }
        return result;
    }

    @Override
    public void close() {
        av_buffer_unref(cudaDevice);
    }
}
