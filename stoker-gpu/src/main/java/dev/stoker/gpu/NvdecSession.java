package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.avcodec_descriptor_get_by_name;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_MPEG;

import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import dev.stoker.video.VideoInfo;
import dev.stoker.video.VideoPackets;
import dev.stoker.video.batch.BatchShape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One NVDEC session on NVIDIA's decode API itself ({@link NvdecApi}): the video parser fed with the demuxer's packets
 * (H.264 and HEVC, made Annex B by FFmpeg's bitstream filters), pictures decoded on the engines, wanted frames mapped
 * and drawn by one kernel launch a clip into the clip's device buffer (NV12 to RGB, crop, resize, layout). What it
 * keeps from video to video: one parser per codec, one decoder per (codec, chroma, bit depth) ({@link NvdecDecoders}),
 * a non-blocking stream of its own (nothing runs on the legacy default stream, so sessions never wait for each other),
 * one event (a clip's work is ordered by the stream; the host waits once, on the event, before unmapping).
 * Between ranges and videos the parser is flushed by an end-of-stream packet, never by destroying anything.
 *
 * <p>What it does not cover goes elsewhere: a codec other than H.264/HEVC, or a stream whose packets' pts do not name
 * their frames (AVI), to {@code elsewhere} (FFmpeg's own decoder with its CUDA hwaccel: {@link NvdecDecoder}); what
 * NVDEC cannot decode at all (its reason known before, or from the parser: 10-bit, 4:2:2, a size outside the caps,
 * BT.2020) to the CPU fallback, with the reason, or fails as {@code unsupported-codec} without one. One per worker
 * thread; not thread-safe.
 */
final class NvdecSession implements DeviceClipDecoder {
    /** The parser's display delay ({@code ulMaxDisplayDelay}): SPDL's 2, in {@code nvcuvid.h}'s recommended 2..4. */
    static final int DISPLAY_DELAY = 2;
    /** The parser's decode surfaces until the first sequence callback sets them (torchcodec's 8). */
    private static final int INITIAL_PARSER_SURFACES = 8;
    /** Keyframes further back each retry starts (ClipRun's), for frames a pass did not produce; retries decode all. */
    private static final int[] RETRY_EARLIER_KEYFRAMES = {0, 1, 4};

    private final NvdecApi api;
    private final NvdecCaps caps;
    private final BatchShape clipShape;
    private final boolean skipNonReference;
    private final Supplier<? extends DeviceClipDecoder> elsewhereFactory;
    private final Supplier<? extends DeviceClipDecoder> cpuFactory;
    private final TraceRecorder trace;
    private final String deviceId;
    private final long stream;
    private final long event;
    private final Map<Integer, Long> parsers = new HashMap<>();
    private final NvdecDecoders decoders;
    private final Arena arena = Arena.ofShared();
    private final BitSet skippedSurfaces = new BitSet();
    private final Callbacks callbacks = new Callbacks();
    private ClipKernelJob[] jobs = new ClipKernelJob[0];
    private DeviceClipDecoder elsewhere;
    private DeviceClipDecoder cpu;
    private NvdecVideoRun run;
    private NvdecDecoders.Decoder active;
    private int colour;
    private int currentPacket = -1;
    private boolean skipping;
    private int mappedNow;
    /** What the session did, for tests and reports; read on its thread or after it stopped. */
    final Counters counters = new Counters();

    /** Counts of what the session asked of the decode API. */
    static final class Counters {
        long videos;
        long picturesDecoded;
        long picturesSkipped;
        long framesMapped;
        long clipLaunches;
        long hostWaits;
        long parserFlushes;
    }

    /**
     * @param elsewhere makes the decoder for what this session does not cover (on first need)
     * @param cpu       makes the CPU decoder for what NVDEC cannot decode (on first need); null: those videos fail
     */
    NvdecSession(NvdecApi api, NvdecCaps caps, String deviceId, BatchShape clipShape, boolean skipNonReference,
                 Supplier<? extends DeviceClipDecoder> elsewhere, Supplier<? extends DeviceClipDecoder> cpu,
                 TraceRecorder trace) {
        this.api = api;
        this.caps = caps;
        this.deviceId = deviceId;
        this.clipShape = clipShape;
        this.skipNonReference = skipNonReference;
        this.elsewhereFactory = elsewhere;
        this.cpuFactory = cpu;
        this.trace = trace;
        this.decoders = new NvdecDecoders(api);
        this.stream = api.createStream();
        long e;
        try {
            e = api.createEvent();
        } catch (RuntimeException failure) {
            api.destroyStream(stream);
            throw failure;
        }
        this.event = e;
    }

    /** The {@code cudaVideoCodec} the session decodes a video of FFmpeg codec {@code codec} with, or -1. */
    static int codecOf(String codec) {
        return switch (codec) {
            case "h264" -> CuvidStructs.CODEC_H264;
            case "hevc" -> CuvidStructs.CODEC_HEVC;
            default -> -1;
        };
    }

    /** Whether this session decodes {@code video} itself (else it goes elsewhere or to the CPU). */
    static boolean covers(Video video) {
        return codecOf(video.info().codec()) >= 0 && video.packetPtsIdentifyFrames()
                && NvdecCodecs.unsupportedReason(video.info()) == null;
    }

    @Override
    public Decoded decode(Video video, List<Target> clips) {
        String unsupported = NvdecCodecs.unsupportedReason(video.info());
        if (unsupported != null) {
            return onCpu(video, clips, unsupported);
        }
        if (!covers(video)) {
            if (elsewhere == null) {
                elsewhere = elsewhereFactory.get();
            }
            return elsewhere.decode(video, clips);
        }
        long startNanos = System.nanoTime();
        try {
            List<DecodedClip> decoded = decodeHere(video, clips);
            if (trace != null) {
                trace.slice("NVDEC decode", "gpu", Thread.currentThread(), startNanos, System.nanoTime() - startNanos, -1,
                        video.info().path() + ": " + clips.size() + " clip(s) on " + deviceId);
            }
            return new Decoded(decoded, null);
        } catch (NotOnDevice e) {
            return onCpu(video, clips, e.getMessage());
        }
    }

    private Decoded onCpu(Video video, List<Target> clips, String reason) {
        if (cpuFactory == null) {
            throw new VideoException(video.info().path(), "nvdec", FailureReason.UNSUPPORTED_CODEC,
                    reason + "; CPU fallback is off");
        }
        if (cpu == null) {
            cpu = cpuFactory.get();
        }
        return new Decoded(cpu.decode(video, clips).clips(), reason);
    }

    private List<DecodedClip> decodeHere(Video video, List<Target> clips) {
        for (Target t : clips) {
            if (t.bytes() < clipShape.clipBytes()) {
                throw new IllegalArgumentException("target: " + t.bytes() + " bytes (expected: " + clipShape.clipBytes()
                        + "+, one clip of " + clipShape + ")");
            }
        }
        VideoInfo info = video.info();
        int codec = codecOf(info.codec());
        NvdecVideoRun r = new NvdecVideoRun(video, clips, clipShape.layout(), skipNonReference, jobs(clips.size()));
        long parser = parser(codec);
        String filterName = codec == CuvidStructs.CODEC_H264 ? "h264_mp4toannexb" : "hevc_mp4toannexb";
        counters.videos++;
        try (AnnexBFilter filter = new AnnexBFilter(info.path(), filterName, avcodec_descriptor_get_by_name(info.codec()).id(),
                r.packets.extradata()); Arena headerArena = Arena.ofConfined()) {
            byte[] headerBytes = filter.headers();
            MemorySegment headers = headerBytes.length == 0 ? null : headerArena.allocateFrom(
                    java.lang.foreign.ValueLayout.JAVA_BYTE, Arrays.copyOf(headerBytes, headerBytes.length + 64));
            colour = colourOf(r.packets, null);
            run = r;
            boolean done = false;
            try {
                for (int attempt = 0; attempt < RETRY_EARLIER_KEYFRAMES.length; attempt++) {
                    int[] todo = r.missing();
                    if (todo.length == 0) {
                        break;
                    }
                    skipping = attempt == 0;
                    sweep(r, todo, RETRY_EARLIER_KEYFRAMES[attempt], parser, filter, headers, headerBytes.length);
                }
                waitForStream();
                mappedNow -= r.unmapReleased(this::unmap);
                int[] missing = r.missing();
                if (missing.length > 0) {
                    int frame = r.wanted[missing[0]];
                    throw new VideoException(info.path(), "decode", FailureReason.CORRUPT, missing.length
                            + " wanted frame(s) not produced by NVDEC, first: frame " + frame + " at "
                            + String.format(java.util.Locale.ROOT, "%.3f", video.frameTimeSeconds(frame)) + " s");
                }
                done = true;
                return r.results();
            } finally {
                if (!done) {
                    abandon(r, parser);
                }
                run = null;
            }
        }
    }

    /** One forward sweep over wanted frames {@code todo}: each range from its keyframe to its last wanted packet. */
    private void sweep(NvdecVideoRun r, int[] todo, int earlierKeyframes, long parser, AnnexBFilter filter,
                       MemorySegment headers, int headerBytes) {
        int position = -1;
        for (int w : todo) {
            int packet = r.packetOf(w);
            if (r.isMapped(w) || packet < 0) {
                continue;
            }
            int start = r.video.decodeStartPacket(r.wanted[w], earlierKeyframes);
            if (position < 0 || start > position) {
                if (position >= 0) {
                    endOfStream(parser);
                }
                filter.flush();
                if (headers != null) {
                    api.parse(parser, headers.address(), headerBytes, 0, 0);
                }
                position = start;
            }
            r.owner(w);
            while (position <= packet) {
                feed(r, parser, filter, position++);
            }
        }
        if (position >= 0) {
            endOfStream(parser);
        }
    }

    private void feed(NvdecVideoRun r, long parser, AnnexBFilter filter, int packet) {
        VideoPackets p = r.packets;
        if (!filter.filter(p.data().address() + p.offsets()[packet], p.sizes()[packet], p.pts()[packet],
                p.keyframes()[packet])) {
            return;
        }
        currentPacket = packet;
        try {
            api.parse(parser, filter.outputAddress(), filter.outputSize(),
                    NvdecApi.PACKET_TIMESTAMP | NvdecApi.PACKET_END_OF_PICTURE, p.pts()[packet]);
        } finally {
            currentPacket = -1;
        }
    }

    /** Flushes the parser: it displays the pictures it holds (the range's last ones) and expects a new stream. */
    private void endOfStream(long parser) {
        api.parse(parser, 0, 0, NvdecApi.PACKET_END_OF_STREAM, 0);
        counters.parserFlushes++;
    }

    /** The session's one host wait a video: everything queued on its stream (the clip kernels) has run. */
    private void waitForStream() {
        api.recordEvent(event, stream);
        api.synchronize(event);
        counters.hostWaits++;
    }

    private void unmap(NvdecApi.MappedFrame frame) {
        api.unmap(active.handle(), frame.pointer());
    }

    private void launch(int clip, ClipKernelJob job) {
        api.launchClip(job, stream);
        counters.clipLaunches++;
    }

    /** Makes room to map one more frame: the output surfaces are the decoder's, and each mapped frame holds one. */
    private void makeRoomToMap(NvdecVideoRun r) {
        if (mappedNow < active.config().outputs()) {
            return;
        }
        waitForStream();
        mappedNow -= r.unmapReleased(this::unmap);
        if (mappedNow >= active.config().outputs()) {
            r.launchPartial(this::launch);
            waitForStream();
            mappedNow -= r.unmapReleased(this::unmap);
        }
    }

    /** After a failure: let the stream finish with the surfaces, give them back, and empty the parser. */
    private void abandon(NvdecVideoRun r, long parser) {
        run = null;
        try {
            waitForStream();
            if (active != null) {
                r.unmapAll(this::unmap);
            }
            mappedNow = 0;
            endOfStream(parser);
        } catch (RuntimeException e) {
            // The decode API is in a state we cannot reason about: start afresh with the next video.
            mappedNow = 0;
            resetParsersAndDecoders();
        }
    }

    private void resetParsersAndDecoders() {
        try {
            Closeables.releaseAll(parsers.values(), api::destroyParser);
        } catch (RuntimeException ignored) {
            // best effort: what failed is gone with the parser map
        }
        parsers.clear();
        try {
            decoders.close();
        } catch (RuntimeException ignored) {
            // idem
        }
        active = null;
    }

    private long parser(int codec) {
        Long parser = parsers.get(codec);
        if (parser == null) {
            parser = api.createParser(codec, INITIAL_PARSER_SURFACES, DISPLAY_DELAY, 0, callbacks);
            parsers.put(codec, parser);
        }
        return parser;
    }

    private ClipKernelJob[] jobs(int clips) {
        if (jobs.length < clips) {
            ClipKernelJob[] more = Arrays.copyOf(jobs, clips);
            for (int i = jobs.length; i < clips; i++) {
                more[i] = new ClipKernelJob(arena);
            }
            jobs = more;
        }
        return jobs;
    }

    /** The kernel's colour flags: the stream's own signal where it gives one, else the container's. */
    static int colourOf(VideoPackets packets, NvdecApi.VideoFormat format) {
        VideoPackets.CodecDetails details = packets.demuxed() == null ? null : packets.demuxed().codec();
        int matrix = format == null || format.matrix() == 2 ? (details == null ? 2 : details.colorSpace()) : format.matrix();
        boolean full = (format != null && format.fullRange()) || packets.pixelFormat().startsWith("yuvj")
                || (details != null && details.colorRange() == AVCOL_RANGE_JPEG);
        return Nv12Kernel.colourFlags(matrix, full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG);
    }

    /** Counts of the session's decoders, for tests. */
    NvdecDecoders decoders() {
        return decoders;
    }

    @Override
    public void close() {
        try {
            Closeables.closeAll(elsewhere, cpu);
        } finally {
            try {
                resetParsersAndDecoders();
                api.destroyEvent(event);
                api.destroyStream(stream);
            } finally {
                arena.close();
            }
        }
    }

    /** The parser's callbacks: set up the decoder, decode what is needed, map and draw what is wanted. */
    private final class Callbacks implements NvdecApi.ParserCallbacks {
        @Override
        public int sequence(NvdecApi.VideoFormat format) {
            NvdecVideoRun r = run;
            if (r == null) {
                return 1;
            }
            NvdecApi.CodecKey key = format.key();
            if (key.chromaFormat() != CuvidStructs.CHROMA_420 || key.bitDepthMinus8() != 0) {
                throw new NotOnDevice((key.bitDepthMinus8() + 8) + "-bit " + chroma(key.chromaFormat())
                        + " (the GPU path converts 8-bit 4:2:0, NV12, only)");
            }
            if (format.matrix() == 9 || format.matrix() == 10) {
                throw new NotOnDevice("BT.2020 colour (the GPU kernel converts BT.601 and BT.709)");
            }
            String refusal = caps.of(key).refusal(format.codedWidth(), format.codedHeight());
            if (refusal != null) {
                throw new NotOnDevice("NVDEC: " + refusal);
            }
            if (mappedNow > 0) {
                // A new sequence mid-video: the surfaces mapped so far belong to the decoder about to change.
                r.launchPartial(NvdecSession.this::launch);
                waitForStream();
                mappedNow -= r.unmapReleased(NvdecSession.this::unmap);
            }
            active = decoders.setUp(format, DISPLAY_DELAY,
                    Math.min(ClipKernelJob.MAX_FRAMES, Math.max(4, clipShape.frames() + DISPLAY_DELAY)));
            colour = colourOf(r.packets, format);
            return active.config().surfaces();
        }

        @Override
        public int decode(NvdecApi.Picture picture) {
            NvdecVideoRun r = run;
            if (r == null || active == null) {
                return 1;
            }
            if (skipping && !picture.reference() && r.skippable(currentPacket)) {
                skippedSurfaces.set(picture.index());
                counters.picturesSkipped++;
                return 1;
            }
            skippedSurfaces.clear(picture.index());
            api.decodePicture(active.handle(), picture);
            counters.picturesDecoded++;
            r.countDecoded();
            return 1;
        }

        @Override
        public int display(NvdecApi.DisplayInfo picture) {
            NvdecVideoRun r = run;
            if (picture == null || r == null || active == null) {
                return 1;
            }
            int w = r.wantedAt(picture.timestamp());
            // A frame nobody wants is never mapped; nor one whose picture was skipped (the next pass decodes all).
            if (w < 0 || r.isMapped(w) || skippedSurfaces.get(picture.index())) {
                return 1;
            }
            makeRoomToMap(r);
            NvdecApi.MappedFrame frame = api.map(active.handle(), picture, stream);
            mappedNow++;
            counters.framesMapped++;
            r.mapped(w, frame, active.config().displayWidth(), active.config().displayHeight(), colour,
                    NvdecSession.this::launch);
            return 1;
        }
    }

    private static String chroma(int format) {
        return switch (format) {
            case 0 -> "monochrome";
            case 1 -> "4:2:0";
            case 2 -> "4:2:2";
            case 3 -> "4:4:4";
            default -> "chroma format " + format;
        };
    }

    /** What NVDEC cannot decode, found while parsing: the video goes to the CPU fallback. */
    static final class NotOnDevice extends RuntimeException {
        NotOnDevice(String reason) {
            super(reason, null, false, false);
        }
    }
}
