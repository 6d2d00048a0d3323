package dev.stoker.video.loader.internal;

import dev.stoker.pipeline.subprocess.ItemCodec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

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
        putArray(v, INT, v.length);
    }

    void putLongs(long[] v) {
        putArray(v, LONG, v.length);
    }

    void putDoubles(double[] v) {
        putArray(v, DOUBLE, v.length);
    }

    void putBytes(byte[] v) {
        putArray(v, ValueLayout.JAVA_BYTE, v.length);
    }

    /** {@code length}, then the primitive array {@code array} of that length in one bulk copy. */
    private void putArray(Object array, ValueLayout element, int length) {
        putInt(length);
        if (target != null) {
            MemorySegment.copy(array, 0, target, element, at, length);
        }
        at += element.byteSize() * length;
    }

    /** {@code item} as {@code codec} encodes it, after its length: an item inside an item. */
    <T> void putItem(ItemCodec<T> codec, T item) {
        long bytes = codec.encodedBytes(item);
        putInt((int) bytes);
        if (target != null) {
            codec.encode(item, target.asSlice(at, bytes));
        }
        at += bytes;
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
        return getArray(int[]::new, INT);
    }

    long[] getLongs() {
        return getArray(long[]::new, LONG);
    }

    double[] getDoubles() {
        return getArray(double[]::new, DOUBLE);
    }

    byte[] getBytes() {
        return getArray(byte[]::new, ValueLayout.JAVA_BYTE);
    }

    /** A primitive array as {@link #putArray} wrote it: its length, then its elements. */
    private <A> A getArray(IntFunction<A> newArray, ValueLayout element) {
        int length = getInt();
        A array = newArray.apply(length);
        MemorySegment.copy(target, element, at, array, 0, length);
        at += element.byteSize() * length;
        return array;
    }

    /** An item {@link #putItem} wrote with {@code codec}. */
    <T> T getItem(ItemCodec<T> codec) {
        int bytes = getInt();
        T item = codec.decode(target.asSlice(at, bytes));
        at += bytes;
        return item;
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
