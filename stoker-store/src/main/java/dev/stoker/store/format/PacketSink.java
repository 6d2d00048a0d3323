package dev.stoker.store.format;

import dev.stoker.video.VideoPackets;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** Collects packets into one padded payload and the per-packet tables of an {@link EncodedSample}. */
final class PacketSink {
    private byte[] payload;
    private int used;
    private int count;
    private long[] pts = new long[64];
    private long[] durations = new long[64];
    private boolean[] keyframes = new boolean[64];
    private long[] offsets = new long[64];
    private int[] sizes = new int[64];

    PacketSink(int expectedBytes) {
        payload = new byte[Math.max(1024, expectedBytes)];
    }

    void add(MemorySegment data, long packetPts, long duration, boolean keyframe) {
        int size = Math.toIntExact(data.byteSize());
        int needed = used + size + VideoPackets.PADDING_BYTES;
        if (needed < 0) {
            throw new IllegalStateException("sample payload exceeds 2 GiB (expected: a smaller --size or a shorter video)");
        }
        if (needed > payload.length) {
            payload = Arrays.copyOf(payload, Math.max(needed, payload.length + payload.length / 2));
        }
        if (count == pts.length) {
            int length = count * 2;
            pts = Arrays.copyOf(pts, length);
            durations = Arrays.copyOf(durations, length);
            keyframes = Arrays.copyOf(keyframes, length);
            offsets = Arrays.copyOf(offsets, length);
            sizes = Arrays.copyOf(sizes, length);
        }
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, payload, used, size);
        pts[count] = packetPts;
        durations[count] = duration;
        keyframes[count] = keyframe;
        offsets[count] = used;
        sizes[count] = size;
        count++;
        used = needed; // the padding stays zero: the array is zeroed when grown and never reused
    }

    int count() {
        return count;
    }

    EncodedSample finish(String codecName, String pixelFormat, DecodedSample sample, byte[] extradata) {
        return new EncodedSample(codecName, pixelFormat, sample.width(), sample.height(), sample.timeBaseNumerator(),
                sample.timeBaseDenominator(), sample.framesPerSecond(), sample.durationSeconds(), extradata,
                Arrays.copyOf(payload, used), Arrays.copyOf(pts, count), Arrays.copyOf(durations, count),
                Arrays.copyOf(keyframes, count), Arrays.copyOf(offsets, count), Arrays.copyOf(sizes, count));
    }
}
