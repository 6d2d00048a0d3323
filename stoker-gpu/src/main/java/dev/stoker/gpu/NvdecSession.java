package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One NVDEC session on NVIDIA's decode API itself ({@link NvdecApi}): the video parser fed with the demuxer's packets
 * (H.264 and HEVC, made Annex B by FFmpeg's bitstream filters), pictures decoded on the engines, wanted frames mapped
 * and drawn by one kernel launch a clip into the clip's device buffer (NV12 to RGB, crop, resize, layout). What it
 * keeps from video to video: one parser per codec, one decoder per (codec, chroma, bit depth) ({@link NvdecDecoders}),
 * a non-blocking stream of its own (nothing runs on the legacy default stream, so sessions never wait for each other),
 * one event (a clip's work is ordered by the stream; the host waits once, on the event, before unmapping).
 * Between ranges and videos the parser is flushed by an end-of-stream packet, never by destroying anything.
 *
 * <p>It decodes 8-bit 4:2:0 H.264 and HEVC whose packets' pts name their frames ({@link #covers}); what the parser
 * finds NVDEC or the kernel cannot take (10-bit, 4:2:2, a size outside the caps, BT.2020) is a {@link NotOnNvdec}.
 * {@link NvdecRouter} sends every other video elsewhere. One per worker thread; not thread-safe.
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
    private final TraceRecorder trace;
    private final String deviceId;
    private final long stream;
    private final long event;
    private final Map<Integer, Long> parsers = new HashMap<>();
    /** Each parser's decoder, as its last sequence callback set it up: a parser may not call it again for a video. */
    private final Map<Integer, NvdecDecoders.Decoder> decoderOfCodec = new HashMap<>();
    private final NvdecDecoders decoders;
    private final Arena arena = Arena.ofShared();
    private final BitSet skippedSurfaces = new BitSet();
    private final Callbacks callbacks = new Callbacks();
    private ClipKernelJob[] jobs = new ClipKernelJob[0];
    private NvdecVideoRun run;
    private NvdecDecoders.Decoder active;
    private int colour;
    private NvdecFeed feed;
    private boolean skipping;
    private int mappedNow;
    /** What the session did, for tests and reports; read on its thread or after it stopped. */
    final NvdecCounters counters = new NvdecCounters();

    NvdecSession(NvdecApi api, NvdecCaps caps, String deviceId, BatchShape clipShape, boolean skipNonReference,
                 TraceRecorder trace) {
        this.api = api;
        this.caps = caps;
        this.deviceId = deviceId;
        this.clipShape = clipShape;
        this.skipNonReference = skipNonReference;
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

    /** Whether the session decodes {@code video} (else {@link NvdecRouter} sends it elsewhere or to the CPU). */
    static boolean covers(Video video) {
        return codecOf(video.info().codec()) >= 0 && video.packetPtsIdentifyFrames()
                && NvdecCodecs.unsupportedReason(video.info()) == null;
    }

    /**
     * Decodes {@code clips} of {@code video}, which the session covers ({@link #covers}), on NVDEC.
     *
     * @throws NotOnNvdec when the parser finds what NVDEC or the kernel cannot take (the caller's CPU fallback then)
     */
    @Override
    public Decoded decode(Video video, List<Target> clips) {
        if (!covers(video)) {
            throw new IllegalArgumentException(video.info().path() + ": " + video.info().codec() + " (expected: 8-bit"
                    + " 4:2:0 H.264 or HEVC whose packets' pts name their frames; NvdecRouter sends others elsewhere)");
        }
        long startNanos = System.nanoTime();
        List<DecodedClip> decoded = decodeHere(video, clips);
        if (trace != null) {
            trace.slice("NVDEC decode", "gpu", Thread.currentThread(), startNanos, System.nanoTime() - startNanos, -1,
                    video.info().path() + ": " + clips.size() + " clip(s) on " + deviceId);
        }
        return new Decoded(decoded, null, DecodePath.NVDEC);
    }

    private List<DecodedClip> decodeHere(Video video, List<Target> clips) {
        for (Target t : clips) {
            if (t.bytes() < clipShape.clipBytes()) {
                throw new IllegalArgumentException("target: " + t.bytes() + " bytes (expected: " + clipShape.clipBytes()
                        + "+, one clip of " + clipShape + ")");
            }
        }
        VideoInfo info = video.info();
        NvdecVideoRun r = new NvdecVideoRun(video, clips, clipShape.layout(), skipNonReference, jobs(clips.size()));
        long parser = parser(codecOf(info.codec()));
        counters.videos++;
        try (NvdecFeed f = new NvdecFeed(api, parser, codecOf(info.codec()), info.path(), info.codec(), r.packets)) {
            colour = NvdecFeed.colourOf(r.packets, null);
            active = decoderOfCodec.get(codecOf(info.codec()));
            feed = f;
            run = r;
            boolean done = false;
            try {
                for (int attempt = 0; attempt < RETRY_EARLIER_KEYFRAMES.length; attempt++) {
                    int[] todo = r.missing();
                    if (todo.length == 0) {
                        break;
                    }
                    skipping = attempt == 0;
                    sweep(r, f, todo, RETRY_EARLIER_KEYFRAMES[attempt]);
                }
                waitForStream();
                mappedNow -= r.unmapReleased(this::unmap);
                int[] missing = r.missing();
                if (missing.length > 0) {
                    int frame = r.wanted[missing[0]];
                    throw new VideoException(info.path(), VideoException.Operation.DECODE, FailureReason.CORRUPT, missing.length
                            + " wanted frame(s) not produced by NVDEC, first: frame " + frame + " at "
                            + String.format(Locale.ROOT, "%.3f", video.frameTimeSeconds(frame)) + " s");
                }
                done = true;
                return r.results();
            } finally {
                if (!done) {
                    abandon(r, f);
                }
                counters.parserFlushes += f.flushes;
                run = null;
                feed = null;
            }
        }
    }

    /**
     * The NVDEC ceiling: {@code pictures} pictures of {@code video} decoded from its first packet on (again from the
     * start when it is shorter), nothing skipped, nothing mapped, nothing drawn; the engines have finished on return.
     *
     * @return the pictures decoded
     */
    long decodeOnly(Video video, long pictures) {
        if (!covers(video)) {
            throw new IllegalArgumentException(video.info().path() + ": the NVDEC session decodes 8-bit 4:2:0 H.264 and"
                    + " HEVC whose packets' pts name their frames (expected: such a video)");
        }
        VideoInfo info = video.info();
        NvdecVideoRun r = new NvdecVideoRun(video, List.of(), clipShape.layout(), false, jobs(0));
        long parser = parser(codecOf(info.codec()));
        long before = counters.picturesDecoded;
        try (NvdecFeed f = new NvdecFeed(api, parser, codecOf(info.codec()), info.path(), info.codec(), r.packets)) {
            active = decoderOfCodec.get(codecOf(info.codec()));
            feed = f;
            run = r;
            skipping = false;
            try {
                while (counters.picturesDecoded - before < pictures) {
                    long round = counters.picturesDecoded;
                    f.startRange();
                    for (int p = 0; p < r.packets.packetCount() && counters.picturesDecoded - before < pictures; p++) {
                        f.feed(p);
                    }
                    f.endOfStream();
                    if (counters.picturesDecoded == round) {
                        throw new IllegalStateException(info.path() + ": NVDEC decoded no picture of it");
                    }
                }
                // The decoder's last picture is done once it can be mapped: nothing is, so wait on the engines by
                // mapping nothing and synchronising the stream the decoder's work is ordered before.
                waitForStream();
            } finally {
                run = null;
                feed = null;
            }
        }
        return counters.picturesDecoded - before;
    }

    /** One forward sweep over wanted frames {@code todo}: each range from its keyframe to its last wanted packet. */
    private void sweep(NvdecVideoRun r, NvdecFeed f, int[] todo, int earlierKeyframes) {
        int position = -1;
        for (int w : todo) {
            int packet = r.packetOf(w);
            if (r.isMapped(w) || packet < 0) {
                continue;
            }
            int start = r.video.decodeStartPacket(r.wanted[w], earlierKeyframes);
            if (position < 0 || start > position) {
                if (position >= 0) {
                    f.endOfStream();
                }
                f.startRange();
                position = start;
            }
            r.owner(w);
            while (position <= packet) {
                f.feed(position++);
            }
        }
        if (position >= 0) {
            f.endOfStream();
        }
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
    private void abandon(NvdecVideoRun r, NvdecFeed f) {
        run = null;
        try {
            waitForStream();
            if (active != null) {
                r.unmapAll(this::unmap);
            }
            mappedNow = 0;
            f.endOfStream();
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
        decoderOfCodec.clear();
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

    /** Counts of the session's decoders, for tests. */
    NvdecDecoders decoders() { return decoders; }

    @Override
    public void close() {
        try {
            resetParsersAndDecoders();
            api.destroyEvent(event);
            api.destroyStream(stream);
        } finally {
            arena.close();
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
            String refusal = caps.refusal(format);
            if (refusal != null) {
                throw new NotOnNvdec(refusal);
            }
            if (mappedNow > 0) {
                // A new sequence mid-video: the surfaces mapped so far belong to the decoder about to change.
                r.launchPartial(NvdecSession.this::launch);
                waitForStream();
                mappedNow -= r.unmapReleased(NvdecSession.this::unmap);
            }
            active = decoders.setUp(format, DISPLAY_DELAY,
                    Math.min(ClipKernelJob.MAX_FRAMES, Math.max(4, clipShape.frames() + DISPLAY_DELAY)));
            decoderOfCodec.put(format.key().codec(), active);
            colour = NvdecFeed.colourOf(r.packets, format);
            return active.config().surfaces();
        }

        @Override
        public int decode(NvdecApi.Picture picture) {
            NvdecVideoRun r = run;
            if (r == null || active == null) {
                return 1;
            }
            if (skipping && !picture.reference() && r.skippable(feed.currentPacket())) {
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
}
