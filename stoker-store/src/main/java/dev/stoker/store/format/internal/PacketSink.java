package dev.stoker.store.format.internal;

import dev.stoker.video.internal.PacketColumns;
import dev.stoker.video.VideoPackets;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** Collects packets into one padded payload and the per-packet tables of an {@link EncodedSample}. */
public final class PacketSink {
    private byte[] payload;
    private int used;
    private final PacketColumns packets = new PacketColumns(64);

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
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, payload, used, size);
        // A shard stores no dts: the pts stands in for it (no B-frames, so decode order is presentation order).
        packets.add(packetPts, packetPts, duration, keyframe ? PacketColumns.KEYFRAME : 0, used, size);
        used = needed; // the padding stays zero: the array is zeroed when grown and never reused
    }

    int count() { return packets.count(); }

    EncodedSample finish(String codecName, String pixelFormat, DecodedSample sample, byte[] extradata) {
        return new EncodedSample(codecName, pixelFormat, sample.width(), sample.height(), sample.timeBaseNumerator(),
                sample.timeBaseDenominator(), sample.framesPerSecond(), sample.durationSeconds(), extradata,
                Arrays.copyOf(payload, used), packets.ptsArray(), packets.durationsArray(), packets.keyframesArray(),
                packets.offsetsArray(), packets.sizesArray());
    }
}
