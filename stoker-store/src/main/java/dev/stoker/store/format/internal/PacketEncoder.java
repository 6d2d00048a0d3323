package dev.stoker.store.format.internal;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_FLAG_GLOBAL_HEADER;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_FLAG_QSCALE;
import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_encoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_frame;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_MPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EAGAIN;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_RGB24;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ420P;
import static org.bytedeco.ffmpeg.global.avutil.FF_QP2LAMBDA;
import static org.bytedeco.ffmpeg.global.avutil.av_d2q;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_count;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_get_buffer;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_make_writable;
import static org.bytedeco.ffmpeg.global.avutil.av_make_q;
import static org.bytedeco.ffmpeg.global.swscale.SWS_ACCURATE_RND;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.SWS_CS_ITU601;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCoefficients;
import static org.bytedeco.ffmpeg.global.swscale.sws_getContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;
import static org.bytedeco.ffmpeg.global.swscale.sws_setColorspaceDetails;

import dev.stoker.video.internal.CodecResources;
import dev.stoker.video.Ffmpeg;
import dev.stoker.video.FfmpegNatives;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Encodes RGB24 frames with an FFmpeg encoder into packets (the demo's ClipEncoder without the muxer):
 * swscale turns each frame into 4:2:0 (BT.601; limited range for H.264, full for JPEG), the encoder
 * gets it with its pts, and every packet goes to a {@link PacketSink}. Single owner of the encoder
 * context, frame, packet and swscale context; one instance per sample.
 */
public final class PacketEncoder implements AutoCloseable {
    /** The encoder's input format and range. */
    enum Chroma {
        YUV420P(AV_PIX_FMT_YUV420P, false),
        YUVJ420P(AV_PIX_FMT_YUVJ420P, true);

        final int encoderFormat;
        final boolean fullRange;

        Chroma(int encoderFormat, boolean fullRange) {
            this.encoderFormat = encoderFormat;
            this.fullRange = fullRange;
        }
    }

    private final String encoderName;
    private AVCodecContext context;
    private AVFrame frame;
    private AVPacket packet;
    private SwsContext sws;
    private final PointerPointer<?> sourcePlanes = new PointerPointer<>(4);
    private final IntPointer sourceStrides = new IntPointer(4);
    private final int qscale;
    private byte[] extradata = new byte[0];

    private PacketEncoder(String encoderName, int qscale) {
        FfmpegNatives.ready();
        this.encoderName = encoderName;
        this.qscale = qscale;
    }

    /**
     * @param gopFrames     keyframe interval (1 for intra-only codecs)
     * @param bitsPerSecond target bit rate, 0 for none
     * @param qscale        fixed quantiser (2..31), 0 for none
     */
    static PacketEncoder open(String encoderName, Chroma chroma, DecodedSample sample, int gopFrames,
                              long bitsPerSecond, int qscale, Map<String, String> options) {
        PacketEncoder encoder = new PacketEncoder(encoderName, qscale);
        try {
            encoder.open(chroma, sample, gopFrames, bitsPerSecond, options);
            return encoder;
        } catch (RuntimeException | Error e) {
            encoder.close();
            throw e;
        }
    }

    private void open(Chroma chroma, DecodedSample sample, int gopFrames, long bitsPerSecond, Map<String, String> options) {
        AVCodec codec = avcodec_find_encoder_by_name(encoderName);
        if (codec == null || codec.isNull()) {
            throw new IllegalStateException("encoder " + encoderName + " is not in the bundled FFmpeg build");
        }
        context = avcodec_alloc_context3(codec);
        context.width(sample.width());
        context.height(sample.height());
        context.pix_fmt(chroma.encoderFormat);
        context.color_range(chroma.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG);
        context.time_base(av_make_q(sample.timeBaseNumerator(), sample.timeBaseDenominator()));
        if (sample.framesPerSecond() > 0) {
            try (AVRational rate = av_d2q(sample.framesPerSecond(), 1_000_000)) {
                context.framerate(av_make_q(rate.num(), rate.den()));
            }
        }
        context.gop_size(gopFrames);
        context.keyint_min(gopFrames);
        context.max_b_frames(0);
        context.thread_count(1); // deterministic output, and ingest runs one sample per worker anyway
        if (bitsPerSecond > 0) {
            context.bit_rate(bitsPerSecond);
        }
        if (qscale > 0) {
            context.flags(context.flags() | AV_CODEC_FLAG_QSCALE);
            context.global_quality(qscale * FF_QP2LAMBDA);
        }
        if (gopFrames > 1) {
            context.flags(context.flags() | AV_CODEC_FLAG_GLOBAL_HEADER); // SPS/PPS as extradata
        }
        AVDictionary dictionary = new AVDictionary(null);
        for (Map.Entry<String, String> option : options.entrySet()) {
            av_dict_set(dictionary, option.getKey(), option.getValue(), 0);
        }
        int opened = avcodec_open2(context, codec, dictionary);
        int unused = av_dict_count(dictionary);
        av_dict_free(dictionary);
        check(opened, "open encoder");
        if (unused > 0) {
            throw new IllegalStateException("encoder " + encoderName + " ignored " + unused + " of options " + options.keySet());
        }
        if (context.extradata_size() > 0 && context.extradata() != null && !context.extradata().isNull()) {
            extradata = new byte[context.extradata_size()];
            context.extradata().get(extradata, 0, extradata.length);
        }
        frame = av_frame_alloc();
        frame.format(chroma.encoderFormat);
        frame.width(sample.width());
        frame.height(sample.height());
        frame.color_range(chroma.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG);
        check(av_frame_get_buffer(frame, 0), "allocate frame");
        packet = av_packet_alloc();
        sws = sws_getContext(sample.width(), sample.height(), AV_PIX_FMT_RGB24, sample.width(), sample.height(),
                AV_PIX_FMT_YUV420P, SWS_BILINEAR | SWS_ACCURATE_RND, null, null, (DoublePointer) null);
        if (sws == null || sws.isNull()) {
            throw new IllegalStateException("swscale cannot convert RGB24 to 4:2:0 at " + sample.width() + "x" + sample.height());
        }
        IntPointer bt601 = sws_getCoefficients(SWS_CS_ITU601);
        sws_setColorspaceDetails(sws, bt601, 1, bt601, chroma.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16);
    }

    /** Encodes every frame of {@code sample}; exactly one packet per frame, or it throws. */
    EncodedSample encodeAll(DecodedSample sample, String codecName, String pixelFormat) {
        PacketSink sink = new PacketSink((int) Math.min(1 << 24, sample.frameBytes() * sample.frameCount() / 8));
        MemorySegment planes = MemorySegment.ofAddress(sourcePlanes.address()).reinterpret(32);
        MemorySegment strides = MemorySegment.ofAddress(sourceStrides.address()).reinterpret(16);
        strides.set(ValueLayout.JAVA_INT, 0, sample.width() * 3);
        for (int k = 0; k < sample.frameCount(); k++) {
            check(av_frame_make_writable(frame), "make frame writable");
            planes.set(ValueLayout.JAVA_LONG, 0, sample.frame(k).address());
            int rows = sws_scale(sws, sourcePlanes, sourceStrides, 0, sample.height(), frame.data(), frame.linesize());
            if (rows <= 0) {
                throw new IllegalStateException("swscale produced no rows for frame " + k);
            }
            frame.pts(sample.pts()[k]);
            frame.duration(sample.durations()[k]);
            if (qscale > 0) {
                frame.quality(qscale * FF_QP2LAMBDA);
            }
            check(avcodec_send_frame(context, frame), "encode frame " + k);
            drain(sink, sample);
        }
        check(avcodec_send_frame(context, null), "flush encoder");
        drain(sink, sample);
        if (sink.count() != sample.frameCount()) {
            throw new IllegalStateException(encoderName + " produced " + sink.count() + " packets for "
                    + sample.frameCount() + " frames (expected: one per frame)");
        }
        return sink.finish(codecName, pixelFormat, sample, extradata);
    }

    private void drain(PacketSink sink, DecodedSample sample) {
        while (true) {
            int received = avcodec_receive_packet(context, packet);
            if (received == AVERROR_EAGAIN() || received == AVERROR_EOF) {
                return;
            }
            check(received, "receive packet");
            try {
                int index = sink.count();
                if (index >= sample.frameCount()) {
                    throw new IllegalStateException(encoderName + " produced more packets than the "
                            + sample.frameCount() + " frames it was given");
                }
                MemorySegment data = MemorySegment.ofAddress(packet.data().address()).reinterpret(packet.size());
                // No B-frames: packet i is frame i, so its duration is the frame's.
                sink.add(data, packet.pts(), sample.durations()[index], (packet.flags() & AV_PKT_FLAG_KEY) != 0);
            } finally {
                av_packet_unref(packet);
            }
        }
    }

    private void check(int result, String action) {
        if (result < 0) {
            throw new IllegalStateException(encoderName + ": " + action + " failed: " + Ffmpeg.errorText(result));
        }
    }

    @Override
    public void close() {
        CodecResources.free(context, frame, packet);
        packet = null;
        frame = null;
        context = null;
        if (sws != null) {
            sws_freeContext(sws);
            sws = null;
        }
        sourcePlanes.close();
        sourceStrides.close();
    }
}
