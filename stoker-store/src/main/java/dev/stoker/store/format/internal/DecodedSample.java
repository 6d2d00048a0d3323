package dev.stoker.store.format.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One source video decoded for ingest: {@code frameCount} upright RGB24 frames of
 * {@code width x height}, back to back in {@code frames}, with each frame's timestamp in ticks of
 * {@code timeBaseNumerator/timeBaseDenominator} counted from the first frame; {@code sourceKeyframes}: the frames (of
 * these) the source video's keyframes fell on, ascending, or null when not known. Owns its native memory ({@code arena}).
 */
public record DecodedSample(Arena arena, MemorySegment frames, int width, int height, long[] pts, long[] durations,
                            int timeBaseNumerator, int timeBaseDenominator, double framesPerSecond, int[] sourceKeyframes)
        implements AutoCloseable {

    public DecodedSample {
        if (durations.length != pts.length) {
            throw new IllegalArgumentException("durations: " + durations.length + " (expected: one a frame, " + pts.length + ")");
        }
        if (frames.byteSize() < (long) width * height * 3 * pts.length) {
            throw new IllegalArgumentException("frames: " + frames.byteSize() + " bytes (expected: " + pts.length
                    + " frames of " + width + "x" + height + " RGB24)");
        }
    }

    public int frameCount() { return pts.length; }

    public long frameBytes() {
        return (long) width * height * 3;
    }

    /** Frame {@code k}, RGB24 HWC. */
    public MemorySegment frame(int k) {
        return frames.asSlice(k * frameBytes(), frameBytes());
    }

    /** From the first frame's start to the last frame's end. */
    public double durationSeconds() {
        double tick = (double) timeBaseNumerator / timeBaseDenominator;
        return (pts[pts.length - 1] - pts[0] + durations[pts.length - 1]) * tick;
    }

    @Override
    public void close() {
        arena.close();
    }
}
