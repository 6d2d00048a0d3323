package dev.stoker.store.format.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One source video decoded for ingest: {@code frameCount} upright RGB24 frames of
 * {@code width x height}, back to back in {@code frames}, with each frame's timestamp in ticks of
 * {@code timeBaseNumerator/timeBaseDenominator} counted from the first frame. Owns its native memory.
 */
public final class DecodedSample implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment frames;
    private final int width;
    private final int height;
    private final int frameCount;
    private final long[] pts;
    private final long[] durations;
    private final int timeBaseNumerator;
    private final int timeBaseDenominator;
    private final double framesPerSecond;
    private final int[] sourceKeyframes;

    public DecodedSample(Arena arena, MemorySegment frames, int width, int height, long[] pts, long[] durations,
                         int timeBaseNumerator, int timeBaseDenominator, double framesPerSecond) {
        this(arena, frames, width, height, pts, durations, timeBaseNumerator, timeBaseDenominator, framesPerSecond, null);
    }

    /** {@code sourceKeyframes}: the frames (of these) the source video's keyframes fell on, ascending; null: not known. */
    public DecodedSample(Arena arena, MemorySegment frames, int width, int height, long[] pts, long[] durations,
                         int timeBaseNumerator, int timeBaseDenominator, double framesPerSecond, int[] sourceKeyframes) {
        this.sourceKeyframes = sourceKeyframes;
        this.arena = arena;
        this.frames = frames;
        this.width = width;
        this.height = height;
        this.frameCount = pts.length;
        this.pts = pts;
        this.durations = durations;
        this.timeBaseNumerator = timeBaseNumerator;
        this.timeBaseDenominator = timeBaseDenominator;
        this.framesPerSecond = framesPerSecond;
        if (frames.byteSize() < frameBytes() * frameCount) {
            throw new IllegalArgumentException("frames: " + frames.byteSize() + " bytes (expected: " + frameCount
                    + " frames of " + width + "x" + height + " RGB24)");
        }
    }

    public long frameBytes() {
        return (long) width * height * 3;
    }

    /** Frame {@code k}, RGB24 HWC. */
    public MemorySegment frame(int k) {
        return frames.asSlice(k * frameBytes(), frameBytes());
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    public int frameCount() {
        return frameCount;
    }

    public long[] pts() {
        return pts;
    }

    public long[] durations() {
        return durations;
    }

    public int timeBaseNumerator() {
        return timeBaseNumerator;
    }

    public int timeBaseDenominator() {
        return timeBaseDenominator;
    }

    public double framesPerSecond() {
        return framesPerSecond;
    }

    /** The frames the source video's keyframes fell on, ascending; null when not known. */
    public int[] sourceKeyframes() {
        return sourceKeyframes;
    }

    /** From the first frame's start to the last frame's end. */
    public double durationSeconds() {
        double tick = (double) timeBaseNumerator / timeBaseDenominator;
        return (pts[frameCount - 1] - pts[0] + durations[frameCount - 1]) * tick;
    }

    @Override
    public void close() {
        arena.close();
    }
}
