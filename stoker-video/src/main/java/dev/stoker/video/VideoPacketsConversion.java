package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.avcodec_descriptor_get_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;
import static org.bytedeco.ffmpeg.global.avutil.av_get_pix_fmt;

import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.internal.PacketColumns;
import java.nio.ByteBuffer;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecDescriptor;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * A {@link Video} to and from {@link VideoPackets}: what crosses a process boundary instead of the container
 * (payloads, timestamps, flags, codec parameters, frame timeline), so that the receiving side rebuilds the same
 * video without demuxing again.
 */
final class VideoPacketsConversion {
    private VideoPacketsConversion() {
    }

    static Video fromPackets(String name, VideoPackets packets, boolean copy) {
        FfmpegNatives.ready(); // JavaCPP's class initialisers must not race the background warm-up
        int codecId = decoderCodecId(name, packets.codecName());
        boolean knownFormat = !packets.pixelFormat().isEmpty() && !packets.pixelFormat().equals("unknown");
        int pixelFormat = knownFormat ? av_get_pix_fmt(packets.pixelFormat()) : -1;
        if (knownFormat && pixelFormat < 0) {
            throw new VideoException(name, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC,
                    "unknown pixel format " + packets.pixelFormat());
        }
        if (packets.packetCount() == 0) {
            throw new VideoException(name, VideoException.Operation.INDEX, FailureReason.CORRUPT, "no packets");
        }
        VideoPackets.Demuxed demuxed = packets.demuxed();
        int n = packets.packetCount();
        int[] flags;
        if (demuxed != null) {
            flags = demuxed.flags();
        } else {
            flags = new int[n];
            for (int i = 0; i < n; i++) {
                flags[i] = packets.keyframes()[i] ? FrameTimeline.FLAG_KEY : 0;
            }
        }
        long[] dts = demuxed != null ? demuxed.dts() : packets.pts();
        PacketStore store = copy
                ? PacketStore.copy(packets.data(), packets.pts(), dts, packets.durations(), flags, packets.offsets(), packets.sizes())
                : PacketStore.view(packets.data(), packets.pts(), dts, packets.durations(), flags, packets.offsets(), packets.sizes());
        AVCodecParameters parameters = avcodec_parameters_alloc();
        try {
            parameters.codec_type(AVMEDIA_TYPE_VIDEO);
            parameters.codec_id(codecId);
            parameters.width(packets.width());
            parameters.height(packets.height());
            parameters.format(pixelFormat);
            byte[] extradata = packets.extradata();
            Ffmpeg.setExtradata(parameters, extradata);
            if (demuxed != null) {
                setDetails(parameters, demuxed.codec());
            }
            int num = packets.timeBaseNumerator();
            int den = packets.timeBaseDenominator();
            DecoderKey key = new DecoderKey(codecId, packets.width(), packets.height(), pixelFormat, num, den,
                    ByteBuffer.wrap(extradata.clone()));
            double secondsPerTick = (double) num / den;
            FrameTimeline timeline = demuxed != null && demuxed.frameTimestamps() != null
                    ? FrameTimeline.fromDecodedTimestamps(demuxed.frameTimestamps(), demuxed.frameTimestamps().length, store)
                    : FrameTimeline.fromPacketPts(store);
            if (timeline.frameCount() == 0 || (demuxed == null && timeline.keyframeCount() == 0)) {
                throw new VideoException(name, VideoException.Operation.INDEX, FailureReason.CORRUPT,
                        timeline.frameCount() == 0 ? "no frames" : "no keyframe to start decoding at");
            }
            VideoInfo info = demuxed == null
                    ? Video.info(name, "stoker-packets", parameters, 0, 0, num, den, 0, packets.framesPerSecond(),
                            true, timeline, store, secondsPerTick)
                    : Video.info(name, demuxed.container(), parameters, demuxed.streamIndex(), demuxed.rotationDegrees(), num,
                            den, demuxed.startTimeSeconds(), packets.framesPerSecond(), demuxed.indexComplete(), timeline,
                            store, secondsPerTick);
            return new Video(info, store, timeline, parameters, key, secondsPerTick);
        } catch (RuntimeException | Error e) {
            avcodec_parameters_free(parameters);
            store.close();
            throw e;
        }
    }

    /** The codec id of the decoder named {@code codecName}, or of the codec of that name (e.g. "flv1", decoded by "flv"). */
    private static int decoderCodecId(String name, String codecName) {
        AVCodec codec = avcodec_find_decoder_by_name(codecName);
        if (codec != null && !codec.isNull()) {
            return codec.id();
        }
        AVCodecDescriptor descriptor = avcodec_descriptor_get_by_name(codecName);
        if (descriptor != null && !descriptor.isNull()) {
            AVCodec decoder = avcodec_find_decoder(descriptor.id());
            if (decoder != null && !decoder.isNull()) {
                return descriptor.id();
            }
        }
        throw new VideoException(name, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC, "no decoder named " + codecName);
    }

    static VideoPackets asPackets(Video video, PacketStore packets, FrameTimeline timeline) {
        AVCodecParameters p = video.codecParameters();
        VideoInfo info = video.info();
        PacketColumns columns = packets.columns();
        VideoPackets.CodecDetails details;
        try (AVRational aspect = p.sample_aspect_ratio(); AVRational rate = p.framerate()) {
            details = new VideoPackets.CodecDetails(p.codec_tag(), p.bit_rate(), p.bits_per_coded_sample(),
                    p.bits_per_raw_sample(), p.profile(), p.level(), p.field_order(), p.color_range(), p.color_primaries(),
                    p.color_trc(), p.color_space(), p.chroma_location(), aspect.num(), aspect.den(), rate.num(), rate.den(),
                    p.video_delay());
        }
        VideoPackets.Demuxed demuxed = new VideoPackets.Demuxed(info.container(), info.streamIndex(),
                info.rotationDegrees(), info.startTimeSeconds(), info.indexComplete(), columns.dtsArray(),
                columns.flagsArray(), timeline.packetPtsIdentifyFrames() ? null : timeline.frameTimestamps(), details);
        return new VideoPackets(info.codec(), p.width(), p.height(), info.pixelFormat(), info.timeBaseNumerator(),
                info.timeBaseDenominator(), info.framesPerSecond(), Ffmpeg.extradata(p), packets.payloads(),
                columns.ptsArray(), columns.durationsArray(), columns.keyframesArray(), columns.offsetsArray(),
                columns.sizesArray(), demuxed);
    }

    private static void setDetails(AVCodecParameters p, VideoPackets.CodecDetails d) {
        p.codec_tag(d.codecTag());
        p.bit_rate(d.bitRate());
        p.bits_per_coded_sample(d.bitsPerCodedSample());
        p.bits_per_raw_sample(d.bitsPerRawSample());
        p.profile(d.profile());
        p.level(d.level());
        p.field_order(d.fieldOrder());
        p.color_range(d.colorRange());
        p.color_primaries(d.colorPrimaries());
        p.color_trc(d.colorTransfer());
        p.color_space(d.colorSpace());
        p.chroma_location(d.chromaLocation());
        try (AVRational aspect = new AVRational(); AVRational rate = new AVRational()) {
            p.sample_aspect_ratio(aspect.num(d.sampleAspectNumerator()).den(d.sampleAspectDenominator()));
            p.framerate(rate.num(d.frameRateNumerator()).den(d.frameRateDenominator()));
        }
        p.video_delay(d.videoDelay());
    }
}
