package dev.stoker.video;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.internal.FrameWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;

/**
 * Decodes clips of {@link Video}s into caller-provided memory. Frame-exact: slot k holds exactly
 * the frame the {@link ClipSpec} selects, identified by its presentation timestamp as the decoder
 * outputs it.
 *
 * <p>One instance per thread (not thread-safe): it keeps a few open decoders and a swscale
 * context between calls, flushing instead of reopening when the next video has the same codec
 * parameters. Close it to free them.
 */
public final class ClipDecoder implements AutoCloseable {
    private static final int CACHED_DECODERS = 4;

    private final DecoderCache decoders;
    private final FrameConverter converter = new FrameConverter();
    private final boolean skipNonReference;
    /** Null: swscale into host memory; else frames go to it (hardware decoding). */
    private final FrameWriter writer;
    private long decodedFrames;
    private long clips;

    /** One decoding thread, skipping unneeded non-reference frames. */
    public ClipDecoder() {
        this(1, true);
    }

    /**
     * @param threads                FFmpeg decoding threads per decoder (1 = decode on the caller's thread)
     * @param skipNonReferenceFrames skip decoding packets whose frames are neither output nor
     *                               referenced; only off for measurements
     */
    public ClipDecoder(int threads, boolean skipNonReferenceFrames) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: 1+)");
        }
        FfmpegNatives.ready();
        this.decoders = new DecoderCache(CACHED_DECODERS, threads, null);
        this.skipNonReference = skipNonReferenceFrames;
        this.writer = null;
    }

    // ---- Hardware decoding (stoker-gpu's NVDEC path): the same frame selection, another device draws ----

    /**
     * A decoder that decodes with {@code hardwareDevice} (an FFmpeg {@code AVHWDeviceContext} reference,
     * e.g. CUDA for NVDEC: FFmpeg's own decoder then uses the device's hwaccel where the stream allows, and
     * software decoding where not) and hands every wanted frame to {@code writer} instead of converting it.
     * Clip selection, seeking and frame identification are this class's, exactly as on the CPU. Requests'
     * destinations are only passed to the writer. The caller keeps its reference to {@code hardwareDevice}
     * (each decoder takes one of its own); null decodes in software, handing the writer frames in host memory.
     */
    public ClipDecoder(boolean skipNonReferenceFrames, AVBufferRef hardwareDevice, FrameWriter writer) {
        FfmpegNatives.ready();
        this.decoders = new DecoderCache(CACHED_DECODERS, 1, hardwareDevice);
        this.skipNonReference = skipNonReferenceFrames;
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    /** Decodes one clip into {@code request.destination()}. */
    public DecodedClip decode(Video video, ClipRequest request) {
        return decode(video, List.of(request)).getFirst();
    }

    /**
     * Decodes several clips of one video, decoding frames they share once. All clips are
     * selected first, so an out-of-range clip under {@link PastEndPolicy#SKIP} fails the call
     * before any decoding.
     */
    public List<DecodedClip> decode(Video video, List<ClipRequest> requests) {
        Prepared prepared = prepare(video, requests, false);
        if (prepared == null) {
            return List.of();
        }
        return prepared.clips;
    }

    /**
     * Decodes the clips' frames but leaves converting them to a {@link ClipConverter}, possibly on
     * another thread: the returned {@link DecodedFrames} holds references to the decoded pictures
     * (16 frames of 340×256 YUV 4:2:0 are about 2 MB) until it is converted or closed.
     */
    public DecodedFrames decodeFrames(Video video, List<ClipRequest> requests) {
        Prepared prepared = prepare(video, requests, true);
        if (prepared == null) {
            return new DecodedFrames(null, List.of());
        }
        return new DecodedFrames(prepared.run, prepared.clips);
    }

    private record Prepared(ClipRun run, List<DecodedClip> clips) { }

    private Prepared prepare(Video video, List<ClipRequest> requests, boolean hold) {
        VideoInfo info = video.info();
        int count = requests.size();
        if (count == 0) {
            return null;
        }
        if (count >= 1 << 20) {
            throw new IllegalArgumentException("requests: " + count + " (expected: fewer than 1048576)");
        }
        ClipSelection[] plans = new ClipSelection[count];
        int[] outWidth = new int[count];
        int[] outHeight = new int[count];
        Resize.Framing[] framings = new Resize.Framing[count];
        for (int i = 0; i < count; i++) {
            ClipRequest request = requests.get(i);
            plans[i] = ClipSelection.of(video, request.spec());
            outWidth[i] = request.resize().outputWidth(info);
            outHeight[i] = request.resize().outputHeight(info);
            long required = request.requiredBytes(info);
            if (request.destination().byteSize() < required) {
                throw new IllegalArgumentException("destination: " + request.destination().byteSize() + " bytes (expected: "
                        + required + "+ for " + request.spec().frameCount() + " frames of " + outWidth[i] + "x"
                        + outHeight[i] + " RGB24)");
            }
            framings[i] = request.resize().framing();
        }
        FfmpegLog.clear();
        ClipRun run;
        try {
            DecoderContext decoder = decoders.acquire(video);
            run = new ClipRun(video, decoder, converter, requests, plans, outWidth, outHeight, framings,
                    skipNonReference, hold, writer);
            try {
                run.run();
            } catch (RuntimeException | Error e) {
                run.releaseHeld();
                throw e;
            }
        } catch (RuntimeException | Error e) {
            // A decoder that failed mid-run may hold state we cannot reason about: reopen next time.
            decoders.discard(video);
            throw e;
        }
        List<DecodedClip> results = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int[] frames = plans[i].frames();
            List<Integer> indices = new ArrayList<>(frames.length);
            List<Double> times = new ArrayList<>(frames.length);
            for (int frame : frames) {
                indices.add(frame);
                times.add(video.frameTimeSeconds(frame));
            }
            decodedFrames += run.decodedPerClip[i];
            results.add(new DecodedClip(info.path(), outWidth[i], outHeight[i], indices, times, run.decodedPerClip[i],
                    plans[i].shifted(), plans[i].repeatedFrames(), video.decodeLeadFrames(frames[0])));
        }
        clips += count;
        return new Prepared(run, results);
    }

    /** Frames decoded since creation, over all clips. */
    public long decodedFrames() { return decodedFrames; }

    /** Clips decoded since creation. */
    public long clips() { return clips; }

    @Override
    public void close() {
        decoders.close();
        converter.close();
    }
}
