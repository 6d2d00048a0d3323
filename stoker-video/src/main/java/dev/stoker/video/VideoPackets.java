package dev.stoker.video;

import dev.stoker.loader.clip.VideoInfo;
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
 * @param demuxed              what the demuxer knew beyond the above, for an exact rebuild of a video opened
 *                             from a container ({@link Video#asPackets}); null for packets from elsewhere
 */
public record VideoPackets(String codecName, int width, int height, String pixelFormat, int timeBaseNumerator,
                           int timeBaseDenominator, double framesPerSecond, byte[] extradata, MemorySegment data,
                           long[] pts, long[] durations, boolean[] keyframes, long[] offsets, int[] sizes,
                           Demuxed demuxed) {
    /** Zero bytes every payload must be followed by (AV_INPUT_BUFFER_PADDING_SIZE). */
    public static final int PADDING_BYTES = PacketStore.PADDING_BYTES;
    /** A timestamp that is absent (AV_NOPTS_VALUE). */
    public static final long NO_TIMESTAMP = PacketStore.NO_TIMESTAMP;

    /** Packets with their pts and keyframe flags only (shards): every packet makes one frame at its pts. */
    public VideoPackets(String codecName, int width, int height, String pixelFormat, int timeBaseNumerator,
                        int timeBaseDenominator, double framesPerSecond, byte[] extradata, MemorySegment data,
                        long[] pts, long[] durations, boolean[] keyframes, long[] offsets, int[] sizes) {
        this(codecName, width, height, pixelFormat, timeBaseNumerator, timeBaseDenominator, framesPerSecond, extradata,
                data, pts, durations, keyframes, offsets, sizes, null);
    }

    /**
     * What a demuxer knew beyond the packets' pts and keyframes: with it {@link Video#fromPackets} rebuilds a
     * video opened from a container exactly (the same {@link VideoInfo}, frame timeline and decoder set-up),
     * e.g. one demuxed in a child JVM.
     *
     * @param container        FFmpeg demuxer name
     * @param streamIndex      the video stream's index in the container
     * @param rotationDegrees  clockwise display rotation: 0, 90, 180 or 270
     * @param startTimeSeconds the stream's declared start time, NaN when absent
     * @param indexComplete    false when reading stopped early
     * @param dts              each packet's decode timestamp ({@link #NO_TIMESTAMP} when absent)
     * @param flags            each packet's AV_PKT_FLAG bits (key, discard, ...), as the decoder is given them
     * @param frameTimestamps  the decoder's output timestamps, sorted and distinct, for streams whose packets
     *                         lack pts (AVI: learnt by decoding once); null when the packets' pts are the frames
     * @param codec            the codec parameters beyond codec name, size, pixel format and extradata
     */
    public record Demuxed(String container, int streamIndex, int rotationDegrees, double startTimeSeconds,
                          boolean indexComplete, long[] dts, int[] flags, long[] frameTimestamps, CodecDetails codec) {
        public Demuxed {
            Objects.requireNonNull(container, "container");
            Objects.requireNonNull(dts, "dts");
            Objects.requireNonNull(flags, "flags");
            Objects.requireNonNull(codec, "codec");
        }
    }

    /**
     * AVCodecParameters fields the decoder is opened with besides codec, size, pixel format and extradata, as
     * FFmpeg's own values (its enums' numbers: the same FFmpeg build on both sides).
     */
    public record CodecDetails(int codecTag, long bitRate, int bitsPerCodedSample, int bitsPerRawSample, int profile,
                               int level, int fieldOrder, int colorRange, int colorPrimaries, int colorTransfer,
                               int colorSpace, int chromaLocation, int sampleAspectNumerator,
                               int sampleAspectDenominator, int frameRateNumerator, int frameRateDenominator,
                               int videoDelay) {
    }

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
        if (demuxed != null && (demuxed.dts().length != n || demuxed.flags().length != n)) {
            throw new IllegalArgumentException("packet arrays: pts " + n + ", demuxed dts " + demuxed.dts().length
                    + ", demuxed flags " + demuxed.flags().length + " (expected: equal lengths)");
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
            if (sizes[i] < 0 || offsets[i] < 0 || offsets[i] > data.byteSize() - PADDING_BYTES - sizes[i]) {
                throw new IllegalArgumentException("packet " + i + ": offset " + offsets[i] + ", size " + sizes[i]
                        + " (expected: offset + size + " + PADDING_BYTES + " padding within " + data.byteSize() + " bytes)");
            }
        }
    }

    public int packetCount() { return pts.length; }
}
