package dev.stoker.video;

import dev.stoker.loader.clip.Resize;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.internal.FrameWriter;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.global.avutil;

/**
 * Decodes the frames of several clips of one video in a single forward sweep: frames shared by
 * clips are decoded and converted once, decoding jumps (flush + restart at a keyframe) only when
 * the next wanted frame's keyframe lies ahead, and packets whose frames are not wanted are sent
 * with AVDISCARD_NONREF so disposable frames are never reconstructed.
 *
 * <p>Wanted frames are converted as they come out of the decoder, or, in holding mode, kept as
 * references ({@code av_frame_clone}: the decoder's buffers, not copies) for a later
 * {@link #convertHeld} on another thread; that is what lets convert be a stage of its own.
 */
final class ClipRun implements DecoderContext.FrameSink {
    /** How many keyframes further back each retry starts, for frames a pass failed to produce. */
    private static final int[] RETRY_EARLIER_KEYFRAMES = {0, 1, 4};

    private final Video video;
    private final DecoderContext decoder;
    private final FrameConverter converter;
    private final List<ClipRequest> requests;
    private final ClipSelection[] plans;
    private final int[] outWidth;
    private final int[] outHeight;
    private final Resize.Framing[] framings;
    private final boolean skipNonReference;
    private final String path;
    private final int rotation;
    /** Holding mode: the wanted frames, by wanted index; null when converting directly. */
    private final AVFrame[] held;
    /** Draws frames instead of the converter (hardware decoding); null for swscale. */
    private final FrameWriter writer;

    // Wanted frames, distinct and sorted; targets of wanted frame i are [targetStart[i], targetStart[i+1]).
    private final int[] wanted;
    private final long[] wantedTimestamps;
    private final int[] targetStart;
    private final int[] targetClip;
    private final int[] targetSlot;
    final int[] decodedPerClip;

    // State of the current pass.
    private int[] passWanted;
    private int cursor;
    private int[] missing;
    private int missingCount;
    private int decodeErrors;
    private int lastError;
    private int lastOwner;
    private long previousStamp = PacketStore.NO_TIMESTAMP;
    private final long frameStep;

    ClipRun(Video video, DecoderContext decoder, FrameConverter converter, List<ClipRequest> requests, ClipSelection[] plans,
            int[] outWidth, int[] outHeight, Resize.Framing[] framings, boolean skipNonReference, boolean hold,
            FrameWriter writer) {
        this.video = video;
        this.writer = writer;
        this.path = video.info().path();
        this.rotation = video.info().rotationDegrees();
        this.decoder = decoder;
        this.converter = converter;
        this.requests = requests;
        this.plans = plans;
        this.outWidth = outWidth;
        this.outHeight = outHeight;
        this.framings = framings;
        this.skipNonReference = skipNonReference && video.timeline().packetPtsIdentifyFrames();
        this.decodedPerClip = new int[plans.length];
        this.frameStep = FrameTimeline.nominalStep(video.packets());

        int total = 0;
        for (ClipSelection plan : plans) {
            total += plan.frames().length;
        }
        // Sort (frame, clip, slot) triples by frame: pack them in longs so a primitive sort does it.
        long[] triples = new long[total];
        int t = 0;
        for (int clip = 0; clip < plans.length; clip++) {
            int[] frames = plans[clip].frames();
            for (int slot = 0; slot < frames.length; slot++) {
                triples[t++] = ((long) frames[slot] << 40) | ((long) clip << 20) | slot;
            }
        }
        Arrays.sort(triples);
        targetClip = new int[total];
        targetSlot = new int[total];
        int[] wantedBuilder = new int[total];
        int[] startBuilder = new int[total + 1];
        int distinct = 0;
        for (int i = 0; i < total; i++) {
            int frame = (int) (triples[i] >>> 40);
            targetClip[i] = (int) ((triples[i] >>> 20) & 0xFFFFF);
            targetSlot[i] = (int) (triples[i] & 0xFFFFF);
            if (distinct == 0 || wantedBuilder[distinct - 1] != frame) {
                wantedBuilder[distinct] = frame;
                startBuilder[distinct] = i;
                distinct++;
            }
        }
        startBuilder[distinct] = total;
        wanted = Arrays.copyOf(wantedBuilder, distinct);
        targetStart = Arrays.copyOf(startBuilder, distinct + 1);
        held = hold ? new AVFrame[distinct] : null;
        wantedTimestamps = new long[distinct];
        for (int i = 0; i < distinct; i++) {
            wantedTimestamps[i] = video.timeline().timestamp(wanted[i]);
        }
    }

    /** Decodes every wanted frame into its destinations, or throws when some cannot be decoded. */
    void run() {
        int[] todo = new int[wanted.length];
        for (int i = 0; i < todo.length; i++) {
            todo[i] = i;
        }
        for (int attempt = 0; attempt < RETRY_EARLIER_KEYFRAMES.length && todo.length > 0; attempt++) {
            if (attempt > 0) {
                decoder.reset();
                previousStamp = PacketStore.NO_TIMESTAMP;
            }
            todo = pass(todo, RETRY_EARLIER_KEYFRAMES[attempt]);
        }
        if (todo.length > 0) {
            int frame = wanted[todo[0]];
            String detail = todo.length + " wanted frame(s) not produced by the decoder, first: frame " + frame
                    + " at " + String.format("%.3f", video.frameTimeSeconds(frame)) + " s"
                    + (decodeErrors > 0 ? "; " + decodeErrors + " decode error(s), last: " + Ffmpeg.describe(lastError) : "");
            throw new VideoException(video.info().path(), VideoException.Operation.DECODE, FailureReason.CORRUPT, detail);
        }
    }

    /** One forward sweep over the wanted frames in {@code todo}; returns the ones it missed. */
    private int[] pass(int[] todo, int earlierKeyframes) {
        PacketStore packets = video.packets();
        FrameTimeline timeline = video.timeline();
        passWanted = todo;
        cursor = 0;
        missing = new int[todo.length];
        missingCount = 0;
        int position = -1;
        while (cursor < passWanted.length) {
            int start = timeline.startPacketFor(wanted[passWanted[cursor]], earlierKeyframes);
            if (position < 0 || start > position) {
                if (position >= 0) {
                    decoder.reset();
                }
                previousStamp = PacketStore.NO_TIMESTAMP;
                position = start;
            }
            if (position < packets.count()) {
                boolean needed = !skipNonReference
                        || Arrays.binarySearch(wantedTimestamps, packets.pts(position)) >= 0;
                int result = decoder.feed(packets, position++, needed, this);
                if (result < 0) {
                    decodeErrors++;
                    lastError = result;
                }
            } else {
                int result = decoder.drain(this);
                if (result < 0) {
                    decodeErrors++;
                    lastError = result;
                }
                while (cursor < passWanted.length) {
                    missing[missingCount++] = passWanted[cursor++];
                }
            }
        }
        return Arrays.copyOf(missing, missingCount);
    }

    @Override
    public void accept(AVFrame frame) {
        if (cursor < passWanted.length) {
            lastOwner = targetClip[targetStart[passWanted[cursor]]];
        }
        decodedPerClip[lastOwner]++;
        long stamp = FrameTimeline.stampOf(frame, previousStamp, frameStep);
        previousStamp = stamp;
        int index = video.timeline().frameAt(stamp);
        if (index < 0) {
            return;
        }
        // Output is in presentation order, so a wanted frame older than this one was dropped.
        while (cursor < passWanted.length && wanted[passWanted[cursor]] < index) {
            missing[missingCount++] = passWanted[cursor++];
        }
        if (cursor < passWanted.length && wanted[passWanted[cursor]] == index) {
            deliver(passWanted[cursor++], frame);
        }
    }

    private void deliver(int wantedIndex, AVFrame frame) {
        if (held != null) {
            if (held[wantedIndex] == null) {
                AVFrame ref = avutil.av_frame_clone(frame);
                if (ref == null) {
                    throw new VideoException(path, VideoException.Operation.DECODE, FailureReason.INTERNAL,
                            "av_frame_clone failed (out of memory) while holding frames for the convert stage");
                }
                held[wantedIndex] = ref;
            }
            return;
        }
        convertInto(wantedIndex, frame, converter);
    }

    /** Converts every held frame into its destinations, with the caller's converter (holding mode). */
    void convertHeld(FrameConverter with) {
        for (int i = 0; i < held.length; i++) {
            convertInto(i, held[i], with);
        }
    }

    /** Drops the held frame references; idempotent. */
    void releaseHeld() {
        if (held == null) {
            return;
        }
        for (int i = 0; i < held.length; i++) {
            if (held[i] != null) {
                avutil.av_frame_free(held[i]);
                held[i] = null;
            }
        }
    }

    private void convertInto(int wantedIndex, AVFrame frame, FrameConverter with) {
        if (writer != null) {
            // Destinations may be device memory: the writer draws every slot, no copies from Java.
            for (int t = targetStart[wantedIndex]; t < targetStart[wantedIndex + 1]; t++) {
                int clip = targetClip[t];
                writer.write(frame, new FrameWriter.Target(path, rotation, requests.get(clip), targetSlot[t],
                        outWidth[clip], outHeight[clip], framings[clip]));
            }
            return;
        }
        int previousClip = -1;
        long previousOffset = 0;
        for (int t = targetStart[wantedIndex]; t < targetStart[wantedIndex + 1]; t++) {
            int clip = targetClip[t];
            ClipRequest request = requests.get(clip);
            long frameBytes = (long) outWidth[clip] * outHeight[clip] * 3;
            long offset = targetSlot[t] * frameBytes;
            MemorySegment destination = request.destination();
            if (clip == previousClip) {
                MemorySegment.copy(destination, previousOffset, destination, offset, frameBytes);
            } else {
                with.convert(frame, rotation, request.resize(), framings[clip], outWidth[clip],
                        outHeight[clip], destination, offset, path);
            }
            previousClip = clip;
            previousOffset = offset;
        }
    }
}
