package dev.stoker.gpu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A model of NVDEC and the device, for testing what drives them without a GPU. Time is a model clock, one per calling
 * thread (a session's host), in nanoseconds; nothing sleeps. It models:
 * <ul>
 *   <li>engines: {@code engines} of them; a picture decodes on the first free one, after the previous picture of its
 *       decoder (a stream's pictures decode in order), taking {@code pictureNanos};</li>
 *   <li>decode surfaces: a picture's surface index must be below the decoder's surface count, and reusing an index
 *       waits (the host) until the picture that last used it has decoded;</li>
 *   <li>the parser (H.264, {@link FakeH264Stream}): one picture a packet, the sequence callback on a new sequence
 *       parameter set, pictures displayed in timestamp order once more than {@code reorder + displayDelay} wait, all of
 *       them at end of stream;</li>
 *   <li>mapping: waits until the picture has decoded, copies it (on the stream) into one of the decoder's output
 *       surfaces, which it holds until unmapped; mapping a picture that was never decoded, decoding into a surface
 *       before its mapped copy was made, and unmapping while a launched kernel may still read it are violations;</li>
 *   <li>streams and events: work queued on a stream ends at the stream's model time; waiting on an event brings the
 *       host to it.</li>
 * </ul>
 * Everything that breaks the contract (a call on the default stream, a surface index out of range, a map beyond the
 * output surfaces, a kernel reading an unmapped surface, an unmap before the reader finished) is added to
 * {@link #violations}, which a test expects empty.
 */
final class FakeNvdecApi implements NvdecApi {
    final int engines;
    final long pictureNanos;
    final int reorder;
    /** Host costs: a parse call, a decode submission, a map call, a launch; device cost of the kernel for one frame. */
    long parseNanos = 20_000;
    long submitNanos = 10_000;
    long mapNanos = 10_000;
    long launchNanos = 5_000;
    long kernelNanosPerFrame = 15_000;
    /** The widest coded frame the caps allow (the real ones: 4096 for H.264). */
    int maxWidth = 4096;

    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong creations = new AtomicLong();
    final AtomicLong reconfigurations = new AtomicLong();
    final AtomicLong destroyed = new AtomicLong();
    final Map<CodecKey, AtomicLong> capsQueries = new ConcurrentHashMap<>();
    final AtomicLong hostWaits = new AtomicLong();
    final AtomicLong launches = new AtomicLong();
    private final long[] engineFree;
    private final AtomicLong handles = new AtomicLong(0x1000);
    private final Map<Long, Decoder> decoders = new ConcurrentHashMap<>();
    private final Map<Long, Mapping> mappings = new ConcurrentHashMap<>();
    private final Map<Long, long[]> streams = new ConcurrentHashMap<>();
    private final Map<Long, long[]> events = new ConcurrentHashMap<>();
    private final Map<Long, Parser> parsers = new ConcurrentHashMap<>();
    private final ThreadLocal<long[]> host = ThreadLocal.withInitial(() -> new long[1]);
    /** Per thread: the picture (its id) the parser made for each timestamp, and the timestamps mapped, in order. */
    private final ThreadLocal<Map<Long, Long>> pictureAt = ThreadLocal.withInitial(HashMap::new);
    final ThreadLocal<List<Long>> mappedTimestamps = ThreadLocal.withInitial(ArrayList::new);

    FakeNvdecApi(int engines, long pictureNanos, int reorder) {
        this.engines = engines;
        this.pictureNanos = pictureNanos;
        this.reorder = reorder;
        this.engineFree = new long[engines];
    }

    /** This thread's model time. */
    long now() {
        return host.get()[0];
    }

    private void advance(long nanos) {
        host.get()[0] += nanos;
    }

    private void waitUntil(long time) {
        long[] h = host.get();
        h[0] = Math.max(h[0], time);
    }

    private void onStream(long stream, String call) {
        if (stream == 0) {
            violations.add(call + " on the legacy default stream");
        }
    }

    // ---- decoder --------------------------------------------------------------------------------------------

    private static final class Decoder {
        DecoderConfig config;
        final int createdSurfaces;
        final long[] surfaceDone;
        final long[] surfacePicture;
        long lastDone;
        int mapped;
        int maxInFlightAtMap;
        final List<long[]> submitted = new ArrayList<>();   // {submit time, done time}

        Decoder(DecoderConfig config) {
            this.config = config;
            this.createdSurfaces = config.surfaces();
            this.surfaceDone = new long[config.surfaces()];
            this.surfacePicture = new long[config.surfaces()];
        }

        int inFlightAt(long time) {
            int n = 0;
            for (int i = submitted.size() - 1; i >= 0 && i >= submitted.size() - 64; i--) {
                long[] s = submitted.get(i);
                if (s[0] <= time && time < s[1]) {
                    n++;
                }
            }
            return n;
        }
    }

    /** A mapped picture: its output surface, read by kernels until {@code lastReadDone}, copied there by {@code copyDone}. */
    private record Mapping(Decoder decoder, int surface, long copyDone, long[] lastReadDone) {
    }

    @Override
    public DecoderCaps decoderCaps(CodecKey key) {
        capsQueries.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        boolean h264 = key.codec() == CuvidStructs.CODEC_H264 && key.chromaFormat() == 1 && key.bitDepthMinus8() == 0;
        return new DecoderCaps(h264, engines, h264, 48, 16, maxWidth, 4096, 65536);
    }

    @Override
    public synchronized long createDecoder(DecoderConfig config) {
        creations.incrementAndGet();
        long handle = handles.incrementAndGet();
        decoders.put(handle, new Decoder(config));
        return handle;
    }

    @Override
    public synchronized void reconfigureDecoder(long decoder, DecoderConfig config) {
        Decoder d = decoder(decoder);
        if (config.codedWidth() > d.config.maxWidth() || config.codedHeight() > d.config.maxHeight()) {
            violations.add("reconfigured beyond the decoder's maximum: " + config);
        }
        if (config.surfaces() > d.createdSurfaces) {
            violations.add("reconfigured to " + config.surfaces() + " surfaces, made with " + d.createdSurfaces);
        }
        if (d.mapped > 0) {
            violations.add("reconfigured with " + d.mapped + " surface(s) mapped");
        }
        reconfigurations.incrementAndGet();
        d.config = config;
    }

    @Override
    public synchronized void destroyDecoder(long decoder) {
        if (decoders.remove(decoder) == null) {
            violations.add("destroyed decoder " + decoder + " twice");
        }
        destroyed.incrementAndGet();
    }

    private Decoder decoder(long handle) {
        Decoder d = decoders.get(handle);
        if (d == null) {
            throw new IllegalStateException("no decoder " + handle);
        }
        return d;
    }

    @Override
    public synchronized void decodePicture(long decoder, Picture picture) {
        Decoder d = decoder(decoder);
        if (picture.index() < 0 || picture.index() >= d.config.surfaces()) {
            violations.add("picture into surface " + picture.index() + " of " + d.config.surfaces());
            return;
        }
        for (Mapping m : mappings.values()) {
            if (m.decoder() == d && m.surface() == picture.index() && m.copyDone() > now()) {
                violations.add("picture decoded into surface " + picture.index() + " before its mapped copy was made");
            }
        }
        waitUntil(d.surfaceDone[picture.index()]);   // the surface's last picture must be out of the engine
        advance(submitNanos);
        int engine = 0;
        for (int e = 1; e < engines; e++) {
            if (engineFree[e] < engineFree[engine]) {
                engine = e;
            }
        }
        long start = Math.max(now(), Math.max(d.lastDone, engineFree[engine]));
        long done = start + pictureNanos;
        engineFree[engine] = done;
        d.lastDone = done;
        d.surfaceDone[picture.index()] = done;
        d.surfacePicture[picture.index()] = picture.nativeParams();
        d.submitted.add(new long[] {now(), done});
    }

    @Override
    public synchronized MappedFrame map(long decoder, DisplayInfo picture, long stream) {
        onStream(stream, "cuvidMapVideoFrame64");
        Decoder d = decoder(decoder);
        Long id = pictureAt.get().get(picture.timestamp());
        if (id == null || d.surfacePicture[picture.index()] != id) {
            violations.add("mapped picture at " + picture.timestamp() + ", which was never decoded");
        }
        if (d.mapped >= d.config.outputs()) {
            violations.add("mapped a " + (d.mapped + 1) + "th surface; the decoder has " + d.config.outputs());
        }
        d.maxInFlightAtMap = Math.max(d.maxInFlightAtMap, d.inFlightAt(now()));
        waitUntil(d.surfaceDone[picture.index()]);
        advance(mapNanos);
        long[] s = stream(stream);
        s[0] = Math.max(s[0], now()) + kernelNanosPerFrame / 3;   // the post-processing copy, on the stream
        d.mapped++;
        long pointer = handles.addAndGet(1 << 24);
        mappings.put(pointer, new Mapping(d, picture.index(), s[0], new long[] {0}));
        mappedTimestamps.get().add(picture.timestamp());
        return new MappedFrame(pointer, (d.config.displayWidth() + 255) & ~255);
    }

    @Override
    public synchronized void unmap(long decoder, long devicePointer) {
        Mapping m = mappings.remove(devicePointer);
        if (m == null || m.decoder() != decoder(decoder)) {
            violations.add("unmapped 0x" + Long.toHexString(devicePointer) + ", not mapped by that decoder");
            return;
        }
        if (m.lastReadDone()[0] > now()) {
            violations.add("unmapped a surface a kernel reads until " + m.lastReadDone()[0] + " at " + now()
                    + " (no wait on the stream first)");
        }
        m.decoder().mapped--;
    }

    /** The most pictures one decoder had in the engines when the session mapped a frame, over decoders. */
    synchronized List<Integer> inFlightAtMapPerDecoder() {
        return decoders.values().stream().map(d -> d.maxInFlightAtMap).toList();
    }

    synchronized int liveDecoders() { return decoders.size(); }

    // ---- streams, events, the kernel ------------------------------------------------------------------------

    @Override
    public long createStream() {
        long handle = handles.incrementAndGet();
        streams.put(handle, new long[1]);
        return handle;
    }

    private long[] stream(long handle) {
        long[] s = streams.get(handle);
        if (s == null) {
            throw new IllegalStateException("no stream " + handle);
        }
        return s;
    }

    @Override
    public void destroyStream(long stream) {
        streams.remove(stream);
    }

    @Override
    public long createEvent() {
        long handle = handles.incrementAndGet();
        events.put(handle, new long[1]);
        return handle;
    }

    @Override
    public void recordEvent(long event, long stream) {
        onStream(stream, "cuEventRecord");
        events.get(event)[0] = stream(stream)[0];
    }

    @Override
    public void synchronize(long event) {
        hostWaits.incrementAndGet();
        waitUntil(events.get(event)[0]);
    }

    @Override
    public void destroyEvent(long event) {
        events.remove(event);
    }

    @Override
    public synchronized void launchClip(ClipKernelJob job, long stream) {
        onStream(stream, "cuLaunchKernel");
        advance(launchNanos);
        long[] s = stream(stream);
        s[0] = Math.max(s[0], now()) + job.frames() * kernelNanosPerFrame;
        for (int i = 0; i < job.frames(); i++) {
            Mapping m = mappings.get(job.surface(i));
            if (m == null) {
                violations.add("kernel reads surface 0x" + Long.toHexString(job.surface(i)) + ", which is not mapped");
            } else {
                m.lastReadDone()[0] = s[0];
            }
        }
        launches.incrementAndGet();
    }

    // ---- the parser -----------------------------------------------------------------------------------------

    @Override
    public long createParser(int codec, int maxDecodeSurfaces, int maxDisplayDelay, int clockRate,
                             ParserCallbacks callbacks) {
        if (codec != CuvidStructs.CODEC_H264) {
            throw new UnsupportedOperationException("the fake parses H.264 only");
        }
        long handle = handles.incrementAndGet();
        parsers.put(handle, new Parser(maxDecodeSurfaces, maxDisplayDelay, callbacks));
        return handle;
    }

    @Override
    public void destroyParser(long parser) {
        parsers.remove(parser);
    }

    @Override
    @SuppressWarnings("restricted")
    public void parse(long parser, long address, long bytes, int flags, long timestamp) {
        Parser p = parsers.get(parser);
        advance(parseNanos);
        if ((flags & PACKET_END_OF_STREAM) != 0) {
            p.flush();
            return;
        }
        byte[] data = MemorySegment.ofAddress(address).reinterpret(bytes).toArray(ValueLayout.JAVA_BYTE);
        p.parse(data, (flags & PACKET_TIMESTAMP) != 0 ? timestamp : Long.MIN_VALUE);
    }

    private final class Parser {
        private final int displayDelay;
        private final ParserCallbacks callbacks;
        private int surfaces;
        private FakeH264Stream.Sps sps;
        private boolean sequenceSent;
        private int nextIndex;
        private long nextId = 1;
        private final PriorityQueue<long[]> waiting = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));

        Parser(int surfaces, int displayDelay, ParserCallbacks callbacks) {
            this.surfaces = surfaces;
            this.displayDelay = displayDelay;
            this.callbacks = callbacks;
        }

        void parse(byte[] data, long timestamp) {
            boolean pictured = false;
            for (FakeH264Stream.Nal nal : FakeH264Stream.nals(data)) {
                if (nal.type() == 7) {
                    FakeH264Stream.Sps next = FakeH264Stream.sps(nal.payload());
                    if (!sequenceSent || !next.equals(sps)) {
                        sps = next;
                        int r = callbacks.sequence(new VideoFormat(new CodecKey(CuvidStructs.CODEC_H264,
                                next.chromaFormat(), next.bitDepthMinus8()), next.codedWidth(), next.codedHeight(),
                                next.left(), next.top(), next.right(), next.bottom(), next.maxRefFrames() + 2, true,
                                false, 2));
                        check(r, "sequence");
                        if (r > 1) {
                            surfaces = r;
                        }
                        sequenceSent = true;
                    }
                } else if (nal.slice() && !pictured && sequenceSent) {
                    pictured = true;
                    int index = nextIndex++ % surfaces;
                    long id = nextId++ + ((long) System.identityHashCode(this) << 32);
                    pictureAt.get().put(timestamp, id);
                    check(callbacks.decode(new Picture(index, nal.refIdc() != 0, nal.type() == 5, false, id)), "decode");
                    waiting.add(new long[] {timestamp, index});
                    while (waiting.size() > reorder + displayDelay) {
                        display(waiting.poll());
                    }
                }
            }
        }

        void flush() {
            while (!waiting.isEmpty()) {
                display(waiting.poll());
            }
            sequenceSent = false;
        }

        private void display(long[] picture) {
            check(callbacks.display(new DisplayInfo((int) picture[1], true, false, 0, picture[0])), "display");
        }

        private void check(int result, String callback) {
            if (result == 0) {
                throw new CudaException("cuvidParseVideoData", 999, "CUDA_ERROR_UNKNOWN", "the " + callback
                        + " callback failed");
            }
        }
    }
}
