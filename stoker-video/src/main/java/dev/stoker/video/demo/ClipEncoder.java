package dev.stoker.video.demo;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_FLAG_GLOBAL_HEADER;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_rescale_ts;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_encoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_from_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_frame;
import static org.bytedeco.ffmpeg.global.avformat.AVFMT_GLOBALHEADER;
import static org.bytedeco.ffmpeg.global.avformat.AVIO_FLAG_WRITE;
import static org.bytedeco.ffmpeg.global.avformat.av_interleaved_write_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_write_trailer;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_output_context2;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_new_stream;
import static org.bytedeco.ffmpeg.global.avformat.avformat_write_header;
import static org.bytedeco.ffmpeg.global.avformat.avio_closep;
import static org.bytedeco.ffmpeg.global.avformat.avio_open;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EAGAIN;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_count;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_get_buffer;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_make_writable;
import static org.bytedeco.ffmpeg.global.avutil.av_make_q;

import dev.stoker.video.internal.CodecResources;
import dev.stoker.video.Ffmpeg;
import dev.stoker.video.FfmpegNatives;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;

/** Encodes one synthetic clip and muxes it into a file, through the bundled FFmpeg only. */
final class ClipEncoder {

    /** Kinetics-like keyframe interval: about 8 s at 30 fps. */
    static final int GOP_FRAMES = 250;

    private ClipEncoder() {
    }

    @SuppressWarnings("restricted") // views of the AVFrame's planes, sized from FFmpeg's own linesizes
    static void encode(Path target, DemoCodec codec, SyntheticScene scene, DemoSpec spec) throws IOException {
        FfmpegNatives.ready();
        AVCodec encoder = avcodec_find_encoder_by_name(codec.encoderName);
        if (encoder == null || encoder.isNull()) {
            throw new IOException("encoder " + codec.encoderName + " is not in the bundled FFmpeg build");
        }
        AVFormatContext format = new AVFormatContext(null);
        AVCodecContext context = null;
        AVFrame frame = null;
        AVPacket packet = null;
        AVIOContext io = new AVIOContext(null);
        try {
            check(avformat_alloc_output_context2(format, null, codec.containerName, target.toString()),
                    "allocate " + codec.containerName + " muxer", target);
            context = avcodec_alloc_context3(encoder);
            context.width(spec.width());
            context.height(spec.height());
            context.pix_fmt(AV_PIX_FMT_YUV420P);
            context.time_base(av_make_q(1, spec.framesPerSecond()));
            context.framerate(av_make_q(spec.framesPerSecond(), 1));
            context.gop_size(GOP_FRAMES);
            context.keyint_min(GOP_FRAMES);
            context.max_b_frames(0);
            context.bit_rate(codec.bitsPerSecond);
            // One encoder thread: the generator runs one file per core, which scales better.
            context.thread_count(1);
            if ((format.oformat().flags() & AVFMT_GLOBALHEADER) != 0) {
                context.flags(context.flags() | AV_CODEC_FLAG_GLOBAL_HEADER);
            }
            AVDictionary options = new AVDictionary(null);
            for (Map.Entry<String, String> option : codec.encoderOptions.entrySet()) {
                av_dict_set(options, option.getKey(), option.getValue(), 0);
            }
            int opened = avcodec_open2(context, encoder, options);
            // Options the encoder did not take stay in the dictionary: a renamed option must fail loudly.
            int unused = av_dict_count(options);
            av_dict_free(options);
            check(opened, "open encoder " + codec.encoderName, target);
            if (unused > 0) {
                throw new IOException("encoder " + codec.encoderName + " ignored " + unused + " of options "
                        + codec.encoderOptions.keySet() + " for " + target);
            }

            AVStream stream = avformat_new_stream(format, null);
            stream.time_base(av_make_q(1, spec.framesPerSecond()));
            stream.avg_frame_rate(av_make_q(spec.framesPerSecond(), 1));
            check(avcodec_parameters_from_context(stream.codecpar(), context), "copy codec parameters", target);

            check(avio_open(io, target.toString(), AVIO_FLAG_WRITE), "open output", target);
            format.pb(io);
            check(avformat_write_header(format, (AVDictionary) null), "write header", target);

            frame = av_frame_alloc();
            frame.format(AV_PIX_FMT_YUV420P);
            frame.width(spec.width());
            frame.height(spec.height());
            check(av_frame_get_buffer(frame, 0), "allocate frame", target);
            packet = av_packet_alloc();

            int lumaStride = frame.linesize(0);
            int chromaStride = frame.linesize(1);
            long lumaBytes = (long) lumaStride * spec.height();
            long chromaBytes = (long) chromaStride * (spec.height() / 2);
            int frames = spec.framesPerClip();
            for (int i = 0; i < frames; i++) {
                // The encoder may still reference the last buffer; this gives a private one if so.
                check(av_frame_make_writable(frame), "make frame writable", target);
                scene.render(i,
                        MemorySegment.ofAddress(frame.data(0).address()).reinterpret(lumaBytes), lumaStride,
                        MemorySegment.ofAddress(frame.data(1).address()).reinterpret(chromaBytes),
                        MemorySegment.ofAddress(frame.data(2).address()).reinterpret(chromaBytes), chromaStride);
                frame.pts(i);
                check(avcodec_send_frame(context, frame), "encode frame " + i, target);
                drain(context, packet, format, stream, target);
            }
            check(avcodec_send_frame(context, null), "flush encoder", target);
            drain(context, packet, format, stream, target);
            check(av_write_trailer(format), "write trailer", target);
        } finally {
            CodecResources.free(context, frame, packet);
            if (!io.isNull()) {
                avio_closep(io);
            }
            if (!format.isNull()) {
                avformat_free_context(format);
            }
        }
    }

    private static void drain(AVCodecContext context, AVPacket packet, AVFormatContext format, AVStream stream,
                              Path target) throws IOException {
        while (true) {
            int received = avcodec_receive_packet(context, packet);
            if (received == AVERROR_EAGAIN() || received == AVERROR_EOF) {
                return;
            }
            check(received, "receive packet", target);
            av_packet_rescale_ts(packet, context.time_base(), stream.time_base());
            packet.stream_index(stream.index());
            int written = av_interleaved_write_frame(format, packet);
            av_packet_unref(packet);
            check(written, "write packet", target);
        }
    }

    private static void check(int result, String action, Path target) throws IOException {
        if (result < 0) {
            throw new IOException(action + " failed for " + target + ": " + Ffmpeg.errorText(result));
        }
    }
}
