package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_DATA_DISPLAYMATRIX;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_side_data_get;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_copy;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;
import static org.bytedeco.ffmpeg.global.avutil.av_display_rotation_get;
import static org.bytedeco.ffmpeg.global.avutil.av_get_pix_fmt_name;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.internal.FrameFolder;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacketSideData;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;


/**
 * An opened, indexed video: the chosen video stream's packets held in native memory with a frame
 * timeline, so that any number of clips can be decoded from it, by any number of
 * {@link ClipDecoder}s at once, without touching the container again.
 *
 * <p>Opening reads the whole video stream once (audio is skipped). The caller's bytes can be
 * dropped after {@code open}. Close the video when done; it must not be closed while a decoder
 * is using it.
 */
public final class Video implements KeyframeIndex, AutoCloseable {
    private final VideoInfo info;
    private final PacketStore packets;
    private final FrameTimeline timeline;
    private final DecoderKey decoderKey;
    private AVCodecParameters parameters;
    private final double secondsPerTick;

    Video(VideoInfo info, PacketStore packets, FrameTimeline timeline, AVCodecParameters parameters,
                  DecoderKey decoderKey, double secondsPerTick) {
        this.info = info;
        this.packets = packets;
        this.timeline = timeline;
        this.parameters = parameters;
        this.decoderKey = decoderKey;
        this.secondsPerTick = secondsPerTick;
    }

    /**
     * Opens a file by memory-mapping it, so large files are paged in rather than copied to the heap; or a video stored
     * as a folder of images, one a frame, read whole at {@link FrameFolder#DEFAULT_FPS} frames a second.
     */
    public static Video open(Path file) {
        return open(file, FrameFolder.DEFAULT_FPS);
    }

    /** {@link #open(Path)}, a folder of images playing at {@code frameFolderFps} frames a second (a file's own rate stands). */
    public static Video open(Path file, double frameFolderFps) {
        if (Files.isDirectory(file)) {
            return FrameFolder.list(file).readAll(frameFolderFps);
        }
        String path = file.toString();
        try {
            // A member of a tar archive (WebDataset shards) is mapped in place, as its file would be.
            ArchiveMembers.Member member = ArchiveMembers.find(file).orElse(null);
            if (member != null && !member.intact()) {
                throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.TRUNCATED,
                        ArchiveMembers.truncated(file, member).getMessage());
            }
            Path mapped = member != null ? member.archive() : file;
            try (FileChannel channel = FileChannel.open(mapped, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
                long offset = member != null ? member.member().offset() : 0;
                long size = member != null ? member.member().sizeBytes() : channel.size();
                if (size == 0) {
                    throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.EMPTY_FILE, "file has 0 bytes");
                }
                return open(path, channel.map(FileChannel.MapMode.READ_ONLY, offset, size, arena));
            }
        } catch (NoSuchFileException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NOT_FOUND,
                    e.getReason() != null ? e.getReason() : "no such file", e);
        } catch (IOException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.IO_ERROR, String.valueOf(e), e);
        }
    }

    /** Opens a video from its bytes; {@code path} names it in messages and results. */
    public static Video open(String path, byte[] bytes) {
        return open(path, MemorySegment.ofArray(bytes));
    }

    /** Opens a video from bytes in any segment (heap, native, mapped); only read during this call. */
    public static Video open(String path, MemorySegment bytes) {
        return open(path, bytes, Double.POSITIVE_INFINITY);
    }

    /**
     * Opens a video indexing only about its first {@code seconds}: every frame shown before then (and up to a
     * second more), as a clip of that span needs, without reading the rest of the stream. Frame count and duration
     * are the indexed part's.
     */
    public static Video openFirstSeconds(String path, byte[] bytes, double seconds) {
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("seconds: " + seconds + " (expected: > 0)");
        }
        return open(path, MemorySegment.ofArray(bytes), seconds);
    }

    private static Video open(String path, MemorySegment bytes, double indexSeconds) {
        FfmpegNatives.ready();
        if (bytes.byteSize() == 0) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.EMPTY_FILE, "file has 0 bytes");
        }
        PacketStore packets = new PacketStore(bytes.byteSize() + 64L * 1024);
        AVCodecParameters parameters = null;
        try {
            boolean complete;
            String container;
            int streamIndex;
            int timeBaseNum;
            int timeBaseDen;
            double startTime;
            double declaredFps;
            int rotation;
            try (Demuxer demuxer = Demuxer.open(bytes, path)) {
                complete = demuxer.readAll(packets, indexSeconds);
                AVStream stream = demuxer.stream();
                parameters = avcodec_parameters_alloc();
                Ffmpeg.check(avcodec_parameters_copy(parameters, stream.codecpar()), path, VideoException.Operation.OPEN,
                        FailureReason.INTERNAL);
                container = demuxer.format().iformat().name().getString();
                streamIndex = demuxer.streamIndex();
                // By-value structs come back as fresh native copies: close them now, not at GC.
                try (AVRational timeBase = stream.time_base()) {
                    timeBaseNum = timeBase.num();
                    timeBaseDen = timeBase.den();
                }
                startTime = stream.start_time() == PacketStore.NO_TIMESTAMP || timeBaseDen == 0 ? Double.NaN
                        : stream.start_time() * (double) timeBaseNum / timeBaseDen;
                declaredFps = rate(stream.avg_frame_rate());
                if (declaredFps <= 0) {
                    declaredFps = rate(stream.r_frame_rate());
                }
                rotation = displayRotation(stream.codecpar());
            }
            packets.trim();
            if (packets.count() == 0) {
                throw new VideoException(path, VideoException.Operation.INDEX, complete ? FailureReason.CORRUPT
                        : FailureReason.TRUNCATED, "the video stream has no packets");
            }
            if (timeBaseNum <= 0 || timeBaseDen <= 0) {
                throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.CORRUPT,
                        "invalid time base " + timeBaseNum + "/" + timeBaseDen);
            }
            if ((long) parameters.width() * parameters.height() > DecoderContext.MAX_PIXELS) {
                throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC, "frame size "
                        + parameters.width() + "x" + parameters.height() + " exceeds the 8192x8192 decoder limit");
            }
            DecoderKey key = new DecoderKey(parameters.codec_id(), parameters.width(), parameters.height(),
                    parameters.format(), timeBaseNum, timeBaseDen, ByteBuffer.wrap(Ffmpeg.extradata(parameters)));
            double secondsPerTick = (double) timeBaseNum / timeBaseDen;
            FrameTimeline timeline = FrameTimeline.packetsHavePts(packets)
                    ? FrameTimeline.fromPacketPts(packets)
                    : null;
            VideoInfo draft = info(path, container, parameters, streamIndex, rotation, timeBaseNum, timeBaseDen, startTime,
                    declaredFps, complete, timeline, packets, secondsPerTick);
            Video video = new Video(draft, packets, timeline, parameters, key, secondsPerTick);
            if (timeline == null) {
                video = video.withDecodedTimeline();
            }
            if (video.timeline.frameCount() == 0) {
                throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.CORRUPT, "no decodable frames");
            }
            return video;
        } catch (RuntimeException | Error e) {
            packets.close();
            if (parameters != null) {
                avcodec_parameters_free(parameters);
            }
            throw e;
        }
    }

    /**
     * Indexes a stream given as packets (see {@link VideoPackets}): no container, no copy. The returned
     * video reads the payloads in place, so {@code packets.data()} must stay valid until it is closed.
     * Clips decode exactly as from a container with the same packets and timestamps; with
     * {@link VideoPackets#demuxed()} (from {@link #asPackets}) the video is the one that was opened, down to
     * its {@link VideoInfo}.
     *
     * @throws VideoException UNSUPPORTED_CODEC for an unknown decoder or pixel format, CORRUPT for an
     *                        empty or unusable timeline
     */
    public static Video fromPackets(String name, VideoPackets packets) {
        return VideoPacketsConversion.fromPackets(name, packets, false);
    }

    /**
     * {@link #fromPackets} into memory of the video's own: the payloads are copied (one copy of
     * {@code packets.data()}), so they need only be valid during this call (a slot of a shared-memory
     * ring); {@link #close()} frees the copy.
     */
    public static Video copyFromPackets(String name, VideoPackets packets) {
        return VideoPacketsConversion.fromPackets(name, packets, true);
    }

    /**
     * This video as packets, with everything {@link #fromPackets} needs to rebuild it exactly
     * ({@link VideoPackets#demuxed()}): a view over this video's own memory, valid until {@link #close()}.
     * For sending a demuxed video elsewhere (a parent JVM) without demuxing it again.
     */
    public VideoPackets asPackets() {
        return VideoPacketsConversion.asPackets(this, packets, timeline);
    }

    /**
     * The frames a clip shows, slot by slot, after its past-end policy: what {@link ClipDecoder} decodes
     * for {@code spec}. For planning reads (which records to check) without decoding.
     *
     * @throws VideoException OUT_OF_RANGE when the clip does not fit and the policy is SKIP
     */
    public ClipSelection selectClip(ClipSpec spec) {
        return ClipSelection.of(this, spec);
    }

    /** Decodes every packet once to learn the output timestamps of a stream whose packets lack pts. */
    private Video withDecodedTimeline() {
        long[][] stamps = {new long[packets.count() + 16]};
        int[] n = {0};
        long step = FrameTimeline.nominalStep(packets);
        DecoderContext.FrameSink sink = frame -> {
            long stamp = FrameTimeline.stampOf(frame, n[0] == 0 ? PacketStore.NO_TIMESTAMP : stamps[0][n[0] - 1], step);
            if (stamp != PacketStore.NO_TIMESTAMP) {
                if (n[0] == stamps[0].length) {
                    stamps[0] = Arrays.copyOf(stamps[0], n[0] * 2);
                }
                stamps[0][n[0]++] = stamp;
            }
        };
        try (DecoderContext decoder = DecoderContext.open(this, 1)) {
            for (int i = 0; i < packets.count(); i++) {
                decoder.feed(packets, i, true, sink);
            }
            decoder.drain(sink);
        }
        FrameTimeline decoded = FrameTimeline.fromDecodedTimestamps(stamps[0], n[0], packets);
        VideoInfo updated = info(info.path(), info.container(), parameters, info.streamIndex(), info.rotationDegrees(),
                info.timeBaseNumerator(), info.timeBaseDenominator(), info.startTimeSeconds(), info.framesPerSecond(), info.indexComplete(), decoded, packets, secondsPerTick);
        return new Video(updated, packets, decoded, parameters, decoderKey, secondsPerTick);
    }

    static VideoInfo info(String path, String container, AVCodecParameters parameters, int streamIndex,
                                  int rotation, int timeBaseNum, int timeBaseDen, double startTime, double declaredFps,
                                  boolean complete, FrameTimeline timeline, PacketStore packets, double secondsPerTick) {
        int width = parameters.width();
        int height = parameters.height();
        boolean swap = rotation == 90 || rotation == 270;
        int frames = timeline == null ? 0 : timeline.frameCount();
        double firstPts = frames == 0 ? 0 : timeline.timestamp(0) * secondsPerTick;
        double duration = 0;
        double fps = declaredFps;
        if (frames > 0) {
            double span = (timeline.timestamp(frames - 1) - timeline.timestamp(0)) * secondsPerTick;
            double measuredFps = frames > 1 && span > 0 ? (frames - 1) / span : 0;
            if (fps <= 0 || !Double.isFinite(fps)) {
                fps = measuredFps;
            }
            long lastDuration = packets.duration(packets.count() - 1);
            double lastFrameSeconds = lastDuration > 0 ? lastDuration * secondsPerTick : (fps > 0 ? 1 / fps : 0);
            duration = span + lastFrameSeconds;
        }
        String pixelFormat = "unknown";
        if (parameters.format() >= 0) {
            BytePointer name = av_get_pix_fmt_name(parameters.format());
            if (name != null && !name.isNull()) {
                pixelFormat = name.getString();
            }
        }
        BytePointer codecName = avcodec_get_name(parameters.codec_id());
        return new VideoInfo(path, container, codecName == null ? "unknown" : codecName.getString(), streamIndex,
                width, height, rotation, swap ? height : width, swap ? width : height, pixelFormat,
                timeBaseNum, timeBaseDen, startTime, firstPts, duration, fps, frames,
                timeline == null ? 0 : timeline.keyframeCount(), packets.count(), complete);
    }

    private static double rate(AVRational rational) {
        try (rational) {
            return rational.den() == 0 ? 0 : (double) rational.num() / rational.den();
        }
    }

    /**
     * Clockwise degrees to turn decoded pictures for display, from the display matrix (FFmpeg's
     * angle is counter-clockwise), snapped to a multiple of 90.
     */
    private static int displayRotation(AVCodecParameters parameters) {
        AVPacketSideData side = av_packet_side_data_get(parameters.coded_side_data(), parameters.nb_coded_side_data(),
                AV_PKT_DATA_DISPLAYMATRIX);
        if (side == null || side.isNull() || side.size() < 36 || side.data() == null) {
            return 0;
        }
        double counterClockwise = av_display_rotation_get(new IntPointer(side.data()));
        if (Double.isNaN(counterClockwise)) {
            return 0;
        }
        long clockwise = Math.round(-counterClockwise / 90.0) * 90;
        return (int) Math.floorMod(clockwise, 360);
    }

    public VideoInfo info() { return info; }

    /** Number of frames the decoder outputs; clip frame indices run from 0 to this minus 1. */
    @Override
    public int frameCount() { return timeline.frameCount(); }

    /** Presentation time of frame {@code frame}, in seconds from the first frame. */
    @Override
    public double frameTimeSeconds(int frame) {
        return (timeline.timestamp(frame) - timeline.timestamp(0)) * secondsPerTick;
    }

    /**
     * Frame {@code frame}'s presentation timestamp in time-base ticks: what a decoder outputs it with. For decoders
     * other than FFmpeg's (NVDEC's parser) to know the frames they are given.
     */
    public long frameTimestamp(int frame) {
        return timeline.timestamp(frame);
    }

    /**
     * The packet (in decode order, an index into {@link #asPackets()}) that decoding must start at to output frame
     * {@code frame}: its keyframe, {@code earlierKeyframes} keyframes further back (a retry when a keyframe flag was
     * not a clean entry point).
     */
    public int decodeStartPacket(int frame, int earlierKeyframes) {
        return timeline.startPacketFor(frame, earlierKeyframes);
    }

    /**
     * Whether each packet's pts names the frame it produces, so that a packet whose frame is not wanted is known
     * before decoding (and need not be decoded when nothing references it).
     */
    public boolean packetPtsIdentifyFrames() { return timeline.packetPtsIdentifyFrames(); }

    /** By the packets' index: frames a decode that reaches {@code frame} shows from its entry point up to it. */
    @Override
    public int decodeLeadFrames(int frame) {
        return timeline.leadFrames(frame);
    }

    /** The frames decoding can start at (each entry point's first frame), ascending. */
    public int[] keyframeFrames() { return timeline.keyframeFrames(); }

    /** Native bytes held for packets. */
    public long packetBytes() { return packets.bufferBytes(); }

    PacketStore packets() { return packets; }

    FrameTimeline timeline() { return timeline; }

    AVCodecParameters codecParameters() {
        if (parameters == null) {
            throw new IllegalStateException("video closed: " + info.path());
        }
        return parameters;
    }

    DecoderKey decoderKey() { return decoderKey; }

    double secondsPerTick() { return secondsPerTick; }

    @Override
    public void close() {
        if (parameters != null) {
            avcodec_parameters_free(parameters);
            parameters = null;
            packets.close();
        }
    }
}
