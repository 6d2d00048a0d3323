package dev.stoker.video;

import dev.stoker.video.internal.PacketColumns;
import java.util.Arrays;

/**
 * The presentation timestamps of every frame the decoder will output, sorted, plus where decoding
 * must start to reach each one: the last keyframe whose own frame is not later than the target.
 * Timestamps are in stream time-base ticks.
 */
final class FrameTimeline {
    /** AV_PKT_FLAG_KEY. */
    static final int FLAG_KEY = PacketColumns.KEYFRAME;
    /** AV_PKT_FLAG_DISCARD: the demuxer's edit list drops this packet's frame after decoding. */
    static final int FLAG_DISCARD = 4;

    private final long[] frameTimestamps;
    private final int[] keyPackets;
    private final long[] keyTimestamps;
    /** The frame each entry point's decode starts showing (the first at or after its time), ascending. */
    private final int[] keyFrames;

    private final boolean fromPacketPts;

    private FrameTimeline(long[] frameTimestamps, int[] keyPackets, long[] keyTimestamps, boolean fromPacketPts) {
        this.fromPacketPts = fromPacketPts;
        this.frameTimestamps = frameTimestamps;
        this.keyPackets = keyPackets;
        this.keyTimestamps = keyTimestamps;
        this.keyFrames = new int[keyTimestamps.length];
        for (int j = 0; j < keyTimestamps.length; j++) {
            int i = Arrays.binarySearch(frameTimestamps, keyTimestamps[j]);
            keyFrames[j] = i >= 0 ? i : -i - 1;
        }
    }

    /** True when every frame-producing packet carries a pts, so frames can be known without decoding. */
    static boolean packetsHavePts(PacketStore packets) {
        for (int i = 0; i < packets.count(); i++) {
            if ((packets.flags(i) & FLAG_DISCARD) == 0 && packets.pts(i) == PacketStore.NO_TIMESTAMP) {
                return false;
            }
        }
        return true;
    }

    /** Frames are the packets' pts (B-frames reorder, so sort), minus edit-list discards. */
    static FrameTimeline fromPacketPts(PacketStore packets) {
        long[] frames = new long[packets.count()];
        int n = 0;
        for (int i = 0; i < packets.count(); i++) {
            if ((packets.flags(i) & FLAG_DISCARD) == 0) {
                frames[n++] = packets.pts(i);
            }
        }
        return build(distinctSorted(frames, n), packets, 0, false);
    }

    /**
     * For streams whose packets lack pts (AVI and friends) the decoder's best-effort timestamps
     * are the truth; they are the packets' dts shifted by the decoder's reorder delay.
     */
    static FrameTimeline fromDecodedTimestamps(long[] decoded, int n, PacketStore packets) {
        long[] frames = distinctSorted(decoded, n);
        long firstDts = PacketStore.NO_TIMESTAMP;
        for (int i = 0; i < packets.count() && firstDts == PacketStore.NO_TIMESTAMP; i++) {
            firstDts = packets.dts(i);
        }
        long delay = frames.length == 0 || firstDts == PacketStore.NO_TIMESTAMP ? 0 : frames[0] - firstDts;
        return build(frames, packets, delay, true);
    }

    private static long[] distinctSorted(long[] values, int n) {
        long[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, distinct);
    }

    private static FrameTimeline build(long[] frames, PacketStore packets, long delay, boolean fromDts) {
        int[] keys = new int[packets.count()];
        long[] keyTimes = new long[packets.count()];
        int k = 0;
        for (int i = 0; i < packets.count(); i++) {
            if ((packets.flags(i) & FLAG_KEY) == 0) {
                continue;
            }
            long time = fromDts || packets.pts(i) == PacketStore.NO_TIMESTAMP
                    ? (packets.dts(i) == PacketStore.NO_TIMESTAMP ? PacketStore.NO_TIMESTAMP : packets.dts(i) + delay)
                    : packets.pts(i);
            // Keep keyframe times increasing so the lookup can binary-search; a keyframe that
            // would go backwards is simply not used as an entry point.
            if (time == PacketStore.NO_TIMESTAMP || (k > 0 && time <= keyTimes[k - 1])) {
                continue;
            }
            keys[k] = i;
            keyTimes[k] = time;
            k++;
        }
        return new FrameTimeline(frames, Arrays.copyOf(keys, k), Arrays.copyOf(keyTimes, k), !fromDts);
    }

    /**
     * True when each packet's pts names the frame it produces, so a packet whose frame is not
     * wanted can be identified before decoding (and skipped when nothing references it).
     */
    boolean packetPtsIdentifyFrames() { return fromPacketPts; }

    /**
     * The usual frame duration in ticks: frames drained at end of stream can come out with no
     * timestamp at all (AVI), and FFmpeg's own tools then count on from the previous frame.
     */
    static long nominalStep(PacketStore packets) {
        for (int i = 0; i < packets.count(); i++) {
            if (packets.duration(i) > 0) {
                return packets.duration(i);
            }
        }
        return 1;
    }

    /** A frame's timestamp: best effort, else pts, else the previous frame's plus one step. */
    static long stampOf(org.bytedeco.ffmpeg.avutil.AVFrame frame, long previous, long step) {
        long stamp = frame.best_effort_timestamp();
        if (stamp == PacketStore.NO_TIMESTAMP) {
            stamp = frame.pts();
        }
        if (stamp == PacketStore.NO_TIMESTAMP && previous != PacketStore.NO_TIMESTAMP) {
            stamp = previous + step;
        }
        return stamp;
    }

    /** Every frame's timestamp, sorted (a copy). */
    long[] frameTimestamps() { return frameTimestamps.clone(); }

    int frameCount() { return frameTimestamps.length; }

    long timestamp(int frame) {
        return frameTimestamps[frame];
    }

    int keyframeCount() { return keyPackets.length; }

    /** The frame index of an exact timestamp, or -1. */
    int frameAt(long timestamp) {
        int i = Arrays.binarySearch(frameTimestamps, timestamp);
        return i >= 0 ? i : -1;
    }

    /**
     * Frames between the frame a decode for {@code frame} starts showing (its entry point's, found as
     * {@link #startPacketFor} finds it) and {@code frame}: 0 on a keyframe; {@code frame} itself when no
     * entry point precedes it (decoding starts at the first packet).
     */
    int leadFrames(int frame) {
        int j = Arrays.binarySearch(keyTimestamps, frameTimestamps[frame]);
        if (j < 0) {
            j = -j - 2;
        }
        return j < 0 ? frame : frame - Math.min(frame, keyFrames[j]);
    }

    /** The frames entry points start showing, ascending (distinct unless two entry points share a frame). */
    int[] keyframeFrames() { return keyFrames.clone(); }

    /**
     * The packet to start decoding at to reach frame {@code frame}; {@code earlier} steps that many
     * keyframes further back (a retry when a keyframe flag turned out not to be a clean entry).
     */
    int startPacketFor(int frame, int earlier) {
        int j = Arrays.binarySearch(keyTimestamps, frameTimestamps[frame]);
        if (j < 0) {
            j = -j - 2;
        }
        j -= earlier;
        return j < 0 ? 0 : keyPackets[j];
    }
}
