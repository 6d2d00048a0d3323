package dev.stoker.video.loader.internal;

import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.dataset.VideoEntry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Writes (or, over no segment, only counts) and reads length-prefixed fields in order. Arrays go with
 * one bulk copy each; nothing is aligned (the layouts are unaligned).
 */
public final class CodecCursor {
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    final MemorySegment target;
    long at;

    CodecCursor(MemorySegment target) {
        this.target = target;
    }

    void putInt(int v) {
        if (target != null) {
            target.set(INT, at, v);
        }
        at += 4;
    }

    void putLong(long v) {
        if (target != null) {
            target.set(LONG, at, v);
        }
        at += 8;
    }

    void putDouble(double v) {
        if (target != null) {
            target.set(DOUBLE, at, v);
        }
        at += 8;
    }

    void putInts(int[] v) {
        putInt(v.length);
        if (target != null) {
            MemorySegment.copy(v, 0, target, INT, at, v.length);
        }
        at += 4L * v.length;
    }

    void putLongs(long[] v) {
        putInt(v.length);
        if (target != null) {
            MemorySegment.copy(v, 0, target, LONG, at, v.length);
        }
        at += 8L * v.length;
    }

    void putDoubles(double[] v) {
        putInt(v.length);
        if (target != null) {
            MemorySegment.copy(v, 0, target, DOUBLE, at, v.length);
        }
        at += 8L * v.length;
    }

    void putBytes(byte[] v) {
        putInt(v.length);
        if (target != null) {
            MemorySegment.copy(v, 0, target, ValueLayout.JAVA_BYTE, at, v.length);
        }
        at += v.length;
    }

    void putString(String v) {
        putBytes(v.getBytes(StandardCharsets.UTF_8));
    }

    void putSegment(MemorySegment v) {
        putLong(v.byteSize());
        if (target != null) {
            MemorySegment.copy(v, 0, target, at, v.byteSize());
        }
        at += v.byteSize();
    }

    int getInt() {
        int v = target.get(INT, at);
        at += 4;
        return v;
    }

    long getLong() {
        long v = target.get(LONG, at);
        at += 8;
        return v;
    }

    double getDouble() {
        double v = target.get(DOUBLE, at);
        at += 8;
        return v;
    }

    int[] getInts() {
        int[] v = new int[getInt()];
        MemorySegment.copy(target, INT, at, v, 0, v.length);
        at += 4L * v.length;
        return v;
    }

    long[] getLongs() {
        long[] v = new long[getInt()];
        MemorySegment.copy(target, LONG, at, v, 0, v.length);
        at += 8L * v.length;
        return v;
    }

    double[] getDoubles() {
        double[] v = new double[getInt()];
        MemorySegment.copy(target, DOUBLE, at, v, 0, v.length);
        at += 8L * v.length;
        return v;
    }

    byte[] getBytes() {
        byte[] v = new byte[getInt()];
        MemorySegment.copy(target, ValueLayout.JAVA_BYTE, at, v, 0, v.length);
        at += v.length;
        return v;
    }

    String getString() {
        return new String(getBytes(), StandardCharsets.UTF_8);
    }

    /** A slice of the source (valid only while the source is). */
    MemorySegment getSegment() {
        long bytes = getLong();
        MemorySegment v = target.asSlice(at, bytes);
        at += bytes;
        return v;
    }
}
