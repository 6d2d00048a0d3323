package dev.stoker.store.format.internal;

/**
 * A sample as stored: its packets back to back in {@code payload}, each followed by
 * {@link dev.stoker.video.VideoPackets#PADDING_BYTES} zero bytes, and what a decoder needs to read
 * them ({@link dev.stoker.video.Video#fromPackets}).
 *
 * @param offsets each packet's offset in {@code payload}
 * @param sizes   each packet's size, padding excluded
 */
public record EncodedSample(String codecName, String pixelFormat, int width, int height, int timeBaseNumerator,
                            int timeBaseDenominator, double framesPerSecond, double durationSeconds, byte[] extradata,
                            byte[] payload, long[] pts, long[] durations, boolean[] keyframes, long[] offsets,
                            int[] sizes) {
    public int packetCount() { return pts.length; }
}
