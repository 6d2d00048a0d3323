package dev.stoker.video.internal;

import java.util.Arrays;

/**
 * The per-packet columns of a stream, in decode order, growing as packets are added: pts, dts, duration,
 * flags (AV_PKT_FLAG_*), and where each payload lies (offset and size in the buffer that holds them).
 * Shared by the demuxer's packet store and the shard encoder's packet sink.
 */
public final class PacketColumns {
    /** AV_PKT_FLAG_KEY. */
    public static final int KEYFRAME = 1;

    private int count;
    private long[] pts;
    private long[] dts;
    private long[] durations;
    private int[] flags;
    private long[] offsets;
    private int[] sizes;

    /** Empty, with room for {@code capacity} packets before growing. */
    public PacketColumns(int capacity) {
        this(0, new long[capacity], new long[capacity], new long[capacity], new int[capacity], new long[capacity],
                new int[capacity]);
    }

    private PacketColumns(int count, long[] pts, long[] dts, long[] durations, int[] flags, long[] offsets,
                          int[] sizes) {
        this.count = count;
        this.pts = pts;
        this.dts = dts;
        this.durations = durations;
        this.flags = flags;
        this.offsets = offsets;
        this.sizes = sizes;
    }

    /** Copies of a caller's columns, one packet an index. */
    public static PacketColumns copyOf(long[] pts, long[] dts, long[] durations, int[] flags, long[] offsets, int[] sizes) {
        return new PacketColumns(pts.length, pts.clone(), dts.clone(), durations.clone(), flags.clone(),
                offsets.clone(), sizes.clone());
    }

    public void add(long packetPts, long packetDts, long duration, int packetFlags, long offset, int sizeBytes) {
        if (count == pts.length) {
            int length = Math.max(16, count * 2);
            pts = Arrays.copyOf(pts, length);
            dts = Arrays.copyOf(dts, length);
            durations = Arrays.copyOf(durations, length);
            flags = Arrays.copyOf(flags, length);
            offsets = Arrays.copyOf(offsets, length);
            sizes = Arrays.copyOf(sizes, length);
        }
        pts[count] = packetPts;
        dts[count] = packetDts;
        durations[count] = duration;
        flags[count] = packetFlags;
        offsets[count] = offset;
        sizes[count] = sizeBytes;
        count++;
    }

    public int count() { return count; }

    public long pts(int packet) {
        return pts[packet];
    }

    public long dts(int packet) {
        return dts[packet];
    }

    public long duration(int packet) {
        return durations[packet];
    }

    public int flags(int packet) {
        return flags[packet];
    }

    public long offset(int packet) {
        return offsets[packet];
    }

    public int sizeBytes(int packet) {
        return sizes[packet];
    }

    /** Every packet's pts, as an array of {@link #count()}. */
    public long[] ptsArray() {
        return Arrays.copyOf(pts, count);
    }

    public long[] dtsArray() {
        return Arrays.copyOf(dts, count);
    }

    public long[] durationsArray() {
        return Arrays.copyOf(durations, count);
    }

    public int[] flagsArray() {
        return Arrays.copyOf(flags, count);
    }

    /** Whether each packet is a keyframe. */
    public boolean[] keyframesArray() {
        return keyframes(flags, count);
    }

    /** Whether each of the first {@code count} packets is a keyframe, given their AV_PKT_FLAG bits. */
    public static boolean[] keyframes(int[] flags, int count) {
        boolean[] keyframes = new boolean[count];
        for (int i = 0; i < count; i++) {
            keyframes[i] = (flags[i] & KEYFRAME) != 0;
        }
        return keyframes;
    }

    public long[] offsetsArray() {
        return Arrays.copyOf(offsets, count);
    }

    public int[] sizesArray() {
        return Arrays.copyOf(sizes, count);
    }
}
