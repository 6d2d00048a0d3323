package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AVDISCARD_ALL;
import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_CORRUPT;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avformat.AV_DISPOSITION_ATTACHED_PIC;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_probe_input_buffer2;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_INVALIDDATA;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;

import java.lang.foreign.MemorySegment;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVInputFormat;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.javacpp.PointerPointer;

/**
 * An opened container read from memory: the single owner of the AVFormatContext and of the
 * {@link MemoryInput} it reads through. Used only while indexing; a {@link Video} keeps packets,
 * not the demuxer.
 */
final class Demuxer implements AutoCloseable {
    private final String path;
    private MemoryInput input;
    private AVFormatContext format;
    private int videoStream = -1;

    /** Read past a time limit: B-frames' reorder delay is a few frames; a second covers it with room to spare. */
    static final double READ_MARGIN_SECONDS = 1.0;

    private Demuxer(String path) {
        this.path = path;
    }

    static Demuxer open(MemorySegment bytes, String path) {
        Demuxer demuxer = new Demuxer(path);
        try {
            demuxer.open(bytes);
            return demuxer;
        } catch (RuntimeException e) {
            demuxer.close();
            throw e;
        }
    }

    private void open(MemorySegment bytes) {
        FfmpegLog.install();
        FfmpegLog.clear();
        input = new MemoryInput(bytes, path);

        // Probe by content only (no file name): a name like notes.txt would otherwise make the
        // tty demuxer decode text as ANSI art.
        AVInputFormat probed = new AVInputFormat(null);
        int probe = av_probe_input_buffer2(input.context(), probed, (String) null, null, 0, 0);
        if (probe < 0 || probed.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNKNOWN_FORMAT,
                    "no container format recognised: " + Ffmpeg.describe(probe));
        }
        String formatName = probed.name().getString();
        if (formatName.equals("tty") || formatName.startsWith("image2") || formatName.endsWith("_pipe")) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNKNOWN_FORMAT,
                    "not a video container (detected " + formatName + ")");
        }

        AVFormatContext allocated = avformat_alloc_context();
        if (allocated == null || allocated.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.INTERNAL, "avformat_alloc_context failed");
        }
        allocated.pb(input.context());
        // On failure avformat_open_input frees the context itself; the custom AVIOContext stays ours.
        int opened = avformat_open_input(allocated, (String) null, probed, (AVDictionary) null);
        if (opened < 0) {
            throw openFailure(opened);
        }
        format = allocated;

        if (!headersSuffice(formatName)) {
            int info = avformat_find_stream_info(format, (PointerPointer<?>) null);
            if (info < 0 && format.nb_streams() == 0) {
                throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.CORRUPT,
                        "stream info: " + Ffmpeg.describe(info));
            }
        }
        int best = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, (PointerPointer<?>) null, 0);
        if (best < 0 || (format.streams(best).disposition() & AV_DISPOSITION_ATTACHED_PIC) != 0) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NO_VIDEO_STREAM,
                    "no video stream among " + format.nb_streams() + " stream(s) in " + formatName);
        }
        videoStream = best;
        AVCodec decoder = avcodec_find_decoder(stream().codecpar().codec_id());
        if (decoder == null || decoder.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC,
                    "no decoder for codec id " + stream().codecpar().codec_id());
        }
        for (int i = 0; i < format.nb_streams(); i++) {
            if (i != videoStream) {
                format.streams(i).discard(AVDISCARD_ALL);
            }
        }
    }

    /**
     * MP4 and Matroska headers already give every video stream's codec and size, and packets
     * carry pts; avformat_find_stream_info would decode frames only to learn the pixel format,
     * which the decoder finds anyway. Skipping it roughly halves opening time for these.
     */
    private boolean headersSuffice(String formatName) {
        if (!formatName.startsWith("mov,") && !formatName.startsWith("matroska")) {
            return false;
        }
        for (int i = 0; i < format.nb_streams(); i++) {
            var parameters = format.streams(i).codecpar();
            if (parameters.codec_type() == AVMEDIA_TYPE_VIDEO
                    && (parameters.width() <= 0 || parameters.height() <= 0 || parameters.codec_id() == 0)) {
                return false;
            }
        }
        return format.nb_streams() > 0;
    }

    private VideoException openFailure(int code) {
        String log = FfmpegLog.lastError();
        FailureReason reason;
        if (code == AVERROR_EOF || (log != null && log.contains("moov atom not found"))) {
            reason = FailureReason.TRUNCATED;
        } else if (code == AVERROR_INVALIDDATA) {
            reason = FailureReason.CORRUPT;
        } else {
            reason = FailureReason.CORRUPT;
        }
        return new VideoException(path, VideoException.Operation.OPEN, reason, Ffmpeg.describe(code));
    }

    AVFormatContext format() { return format; }

    AVStream stream() {
        return format.streams(videoStream);
    }

    int streamIndex() { return videoStream; }

    /**
     * Reads every packet of the video stream into {@code packets}. Returns false when reading
     * stopped on an error before the end (a truncated or damaged file); what was read is kept.
     */
    boolean readAll(PacketStore packets) {
        return readAll(packets, Double.POSITIVE_INFINITY);
    }

    /**
     * Reads the video stream's packets into {@code packets} up to the first whose decode time is
     * {@code untilSeconds} + {@link #READ_MARGIN_SECONDS} past the first's: every frame shown before
     * {@code untilSeconds} is among them, with what reordering needs to output it. Packets without
     * timestamps are all read. Returns false when reading stopped on an error (a truncated or damaged file).
     */
    boolean readAll(PacketStore packets, double untilSeconds) {
        double secondsPerTick;
        try (AVRational timeBase = stream().time_base()) {
            secondsPerTick = timeBase.den() == 0 ? 0 : (double) timeBase.num() / timeBase.den();
        }
        long first = PacketStore.NO_TIMESTAMP;
        AVPacket packet = av_packet_alloc();
        if (packet == null || packet.isNull()) {
            throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.INTERNAL, "av_packet_alloc failed");
        }
        try {
            while (true) {
                int read = av_read_frame(format, packet);
                if (read < 0) {
                    return read == AVERROR_EOF;
                }
                try {
                    if (packet.stream_index() == videoStream && (packet.flags() & AV_PKT_FLAG_CORRUPT) != 0) {
                        // A short read ("partial file"): the file ends inside this packet, so it
                        // cannot decode and nothing after it exists.
                        return false;
                    }
                    if (packet.stream_index() == videoStream && untilSeconds < Double.POSITIVE_INFINITY) {
                        long stamp = packet.dts() != PacketStore.NO_TIMESTAMP ? packet.dts() : packet.pts();
                        if (first == PacketStore.NO_TIMESTAMP) {
                            first = stamp;
                        } else if (stamp != PacketStore.NO_TIMESTAMP
                                && (stamp - first) * secondsPerTick >= untilSeconds + READ_MARGIN_SECONDS) {
                            return true;
                        }
                    }
                    if (packet.stream_index() == videoStream && packet.size() >= 0) {
                        long address = packet.data() == null ? 0 : packet.data().address();
                        packets.append(address, address == 0 ? 0 : packet.size(), packet.pts(), packet.dts(),
                                packet.duration(), packet.flags());
                    }
                } finally {
                    av_packet_unref(packet);
                }
            }
        } finally {
            av_packet_free(packet);
        }
    }

    @Override
    public void close() {
        if (format != null) {
            avformat_close_input(format);
            format = null;
        }
        if (input != null) {
            input.close();
            input = null;
        }
    }
}
