package dev.stoker.video;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A video stream given as its packets rather than a container: what {@link Video#fromPackets} indexes
 * without any demuxing. Packets are in decode order; their payloads lie in {@code data} at
 * {@code offsets[i]}, {@code sizes[i]} bytes each, and each must be followed by
 * {@link #PADDING_BYTES} readable zero bytes (decoders read that far ahead). {@code data} must be native
 * memory (a mapped file, an arena's allocation) that outlives the {@link Video}: nothing is copied.
 *
 * @param codecName            FFmpeg decoder name: "h264", "mjpeg", "rawvideo", ...
 * @param width                coded width
 * @param height               coded height
 * @param pixelFormat          FFmpeg pixel format name ("yuv420p", "yuvj420p", "rgb24"; "unknown" lets the
 *                             decoder find it)
 * @param timeBaseNumerator    time base of {@code pts}/{@code durations}
 * @param timeBaseDenominator  time base of {@code pts}/{@code durations}
 * @param framesPerSecond      the nominal frame rate (0 when unknown: measured from the timestamps)
 * @param extradata            out-of-band codec headers (empty when in-band)
 * @param data                 the payloads, each followed by zero padding
 * @param pts                  presentation timestamp of each packet's frame (every packet makes one frame)
 * @param durations            each packet's duration in time-base ticks
 * @param keyframes            whether decoding can start at each packet
 * @param offsets              each payload's offset in {@code data}
 * @param sizes                each payload's size in bytes (padding excluded)
 */
public record VideoPackets(String codecName, int width, int height, String pixelFormat, int timeBaseNumerator,
                           int timeBaseDenominator, double framesPerSecond, byte[] extradata, MemorySegment data,
                           long[] pts, long[] durations, boolean[] keyframes, long[] offsets, int[] sizes) {
    /** Zero bytes every payload must be followed by (AV_INPUT_BUFFER_PADDING_SIZE). */
    public static final int PADDING_BYTES = PacketStore.PADDING_BYTES;

    public VideoPackets {
        Objects.requireNonNull(codecName, "codecName");
        Objects.requireNonNull(pixelFormat, "pixelFormat");
        Objects.requireNonNull(extradata, "extradata");
        Objects.requireNonNull(data, "data");
        int n = pts.length;
        if (durations.length != n || keyframes.length != n || offsets.length != n || sizes.length != n) {
            throw new IllegalArgumentException("packet arrays: pts " + n + ", durations " + durations.length
                    + ", keyframes " + keyframes.length + ", offsets " + offsets.length + ", sizes " + sizes.length
                    + " (expected: equal lengths)");
        }
        if (!data.isNative()) {
            throw new IllegalArgumentException("data: a heap segment (expected: native memory, e.g. a mapped file)");
        }
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("size: " + width + "x" + height + " (expected: 1x1+)");
        }
        if (timeBaseNumerator < 1 || timeBaseDenominator < 1) {
            throw new IllegalArgumentException("time base: " + timeBaseNumerator + "/" + timeBaseDenominator
                    + " (expected: positive)");
        }
        for (int i = 0; i < n; i++) {
            if (sizes[i] < 0 || offsets[i] < 0 || offsets[i] + sizes[i] + PADDING_BYTES > data.byteSize()) {
                throw new IllegalArgumentException("packet " + i + ": offset " + offsets[i] + ", size " + sizes[i]
                        + " (expected: offset + size + " + PADDING_BYTES + " padding within " + data.byteSize() + " bytes)");
            }
        }
    }

    public int packetCount() {
        return pts.length;
    }
}
