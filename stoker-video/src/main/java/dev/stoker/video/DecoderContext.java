package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AVDISCARD_DEFAULT;
import static org.bytedeco.ffmpeg.global.avcodec.AVDISCARD_NONREF;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_flush_buffers;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_ref;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;

import dev.stoker.video.internal.CodecResources;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * One opened decoder with the packet and frame it exchanges: the single owner of the
 * AVCodecContext, AVPacket and AVFrame, freed together in {@link #close()}.
 */
final class DecoderContext implements AutoCloseable {
    /** Frames larger than 8K are refused before allocation; fuzzed headers claim absurd sizes. */
    static final long MAX_PIXELS = 8192L * 8192L;

    private final DecoderKey key;
    private final int threads;
    private AVCodecContext context;
    private AVPacket packet;
    private AVFrame frame;
    private final Ffmpeg.PacketData data = new Ffmpeg.PacketData();
    private int skipFrame = AVDISCARD_DEFAULT;

    private DecoderContext(DecoderKey key, int threads) {
        this.key = key;
        this.threads = threads;
    }

    static DecoderContext open(Video video, int threads) {
        return open(video, threads, null);
    }

    /** {@code hardwareDevice} (nullable): FFmpeg's hwaccel on that device, chosen by the default get_format. */
    static DecoderContext open(Video video, int threads, AVBufferRef hardwareDevice) {
        DecoderContext decoder = new DecoderContext(video.decoderKey(), threads);
        try {
            decoder.open(video, hardwareDevice);
            return decoder;
        } catch (RuntimeException e) {
            decoder.close();
            throw e;
        }
    }

    private void open(Video video, AVBufferRef hardwareDevice) {
        String path = video.info().path();
        AVCodec codec = avcodec_find_decoder(video.codecParameters().codec_id());
        if (codec == null || codec.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN_DECODER, FailureReason.UNSUPPORTED_CODEC,
                    "no decoder for codec " + video.info().codec());
        }
        context = avcodec_alloc_context3(codec);
        if (context == null || context.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN_DECODER, FailureReason.INTERNAL, "avcodec_alloc_context3 failed");
        }
        Ffmpeg.check(avcodec_parameters_to_context(context, video.codecParameters()), path, VideoException.Operation.OPEN_DECODER,
                FailureReason.CORRUPT);
        try (AVRational timeBase = new AVRational()) {
            context.pkt_timebase(timeBase.num(key.timeBaseNum()).den(key.timeBaseDen()));
        }
        context.thread_count(threads);
        context.max_pixels(MAX_PIXELS);
        if (hardwareDevice != null) {
            // FFmpeg's default get_format picks the device's hardware format when a device is set; the
            // context frees its reference.
            context.hw_device_ctx(av_buffer_ref(hardwareDevice));
        }
        int opened = avcodec_open2(context, codec, (AVDictionary) null);
        if (opened < 0) {
            throw new VideoException(path, VideoException.Operation.OPEN_DECODER, FailureReason.UNSUPPORTED_CODEC,
                    "avcodec_open2 for " + video.info().codec() + ": " + Ffmpeg.describe(opened));
        }
        packet = av_packet_alloc();
        frame = av_frame_alloc();
        if (packet == null || frame == null || packet.isNull() || frame.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN_DECODER, FailureReason.INTERNAL, "packet/frame alloc failed");
        }
    }

    DecoderKey key() { return key; }

    int threads() { return threads; }

    /** Drops all decoder state (reference frames, reorder queue, EOF) so a new run can start anywhere. */
    void reset() {
        avcodec_flush_buffers(context);
    }

    /**
     * Sends packet {@code index}; {@code frameNeeded=false} lets the decoder skip it when nothing
     * references it (AVDISCARD_NONREF), which is safe because its own frame is the only output
     * lost, and that frame is known not to be wanted. An empty packet is not sent.
     */
    int send(PacketStore packets, int index, boolean frameNeeded) {
        if (packets.sizeBytes(index) == 0) {
            // Nothing to decode (a folder of frames' frame not read; an AVI's dropped frame): FFmpeg would refuse it
            // with EINVAL, which is no error of the stream's.
            return 0;
        }
        int wanted = frameNeeded ? AVDISCARD_DEFAULT : AVDISCARD_NONREF;
        if (wanted != skipFrame) {
            context.skip_frame(wanted);
            skipFrame = wanted;
        }
        data.point(packets.address(index));
        packet.data(data);
        packet.size(packets.sizeBytes(index));
        packet.pts(packets.pts(index));
        packet.dts(packets.dts(index));
        packet.duration(packets.duration(index));
        packet.flags(packets.flags(index));
        packet.pos(-1);
        return avcodec_send_packet(context, packet);
    }

    /** Receives decoded frames. */
    interface FrameSink {
        void accept(AVFrame frame);
    }

    /**
     * Sends packet {@code index} and hands every frame that becomes ready to {@code sink}.
     * Returns 0, or the negative error the decoder reported for this packet (the caller decides
     * whether a damaged packet is fatal; FFmpeg's own CLI carries on).
     */
    int feed(PacketStore packets, int index, boolean frameNeeded, FrameSink sink) {
        while (true) {
            int sent = send(packets, index, frameNeeded);
            int received = receiveAll(sink);
            if (sent == Ffmpeg.EAGAIN) {
                if (received == Ffmpeg.EAGAIN) {
                    continue; // output was drained, so the packet is accepted now
                }
                return received < 0 ? received : Ffmpeg.EAGAIN;
            }
            if (sent < 0) {
                return sent;
            }
            return received == Ffmpeg.EAGAIN || received == AVERROR_EOF ? 0 : received;
        }
    }

    /** Signals end of stream and hands every remaining frame to {@code sink}. */
    int drain(FrameSink sink) {
        int sent = sendEndOfStream();
        int received = receiveAll(sink);
        if (sent < 0 && sent != AVERROR_EOF) {
            return sent;
        }
        return received == AVERROR_EOF || received == Ffmpeg.EAGAIN ? 0 : received;
    }

    private int receiveAll(FrameSink sink) {
        int received;
        while ((received = receive()) >= 0) {
            sink.accept(frame);
        }
        return received;
    }

    /** Enters draining mode: the decoder then returns the frames it still holds. */
    int sendEndOfStream() {
        if (skipFrame != AVDISCARD_DEFAULT) {
            context.skip_frame(AVDISCARD_DEFAULT);
            skipFrame = AVDISCARD_DEFAULT;
        }
        return avcodec_send_packet(context, null);
    }

    /** Receives the next frame into {@link #frame()}; the previous one is released first. */
    int receive() {
        av_frame_unref(frame);
        return avcodec_receive_frame(context, frame);
    }

    AVFrame frame() { return frame; }

    @Override
    public void close() {
        if (packet != null) {
            packet.data(null);
            packet.size(0);
        }
        CodecResources.free(context, frame, packet);
        packet = null;
        frame = null;
        context = null;
    }
}
