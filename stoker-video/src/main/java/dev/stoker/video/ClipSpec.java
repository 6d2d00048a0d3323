package dev.stoker.video;

import java.util.Objects;

/**
 * Which frames of a video make a clip. Time {@code startSeconds} counts from the video's first
 * frame; the clip's first frame is the first frame whose presentation time is at or after it.
 */
public sealed interface ClipSpec permits ClipSpec.Strided, ClipSpec.Resampled {

    double startSeconds();

    /** Number of frames the clip holds. */
    int frameCount();

    PastEndPolicy pastEnd();

    ClipSpec withPastEnd(PastEndPolicy policy);

    /** {@code frames} frames, {@code strideFrames} apart in the video's own frame sequence. */
    static Strided frames(double startSeconds, int frames, int strideFrames) {
        return new Strided(startSeconds, frames, strideFrames, PastEndPolicy.SHIFT);
    }

    /**
     * {@code durationSeconds} of video resampled to {@code framesPerSecond} by timestamps: slot k
     * holds the first frame whose time is at or after {@code startSeconds + k / framesPerSecond}
     * (nearest not earlier, so a slot never shows a moment before its sampling time). Frames repeat
     * when the requested rate exceeds the video's.
     */
    static Resampled resampled(double startSeconds, double durationSeconds, double framesPerSecond) {
        return new Resampled(startSeconds, durationSeconds, framesPerSecond, PastEndPolicy.SHIFT);
    }

    /** Frame-sequence sampling: {@code frames} frames with {@code strideFrames} between them. */
    record Strided(double startSeconds, int frames, int strideFrames, PastEndPolicy pastEnd) implements ClipSpec {
        public Strided {
            requireStart(startSeconds);
            if (frames < 1) {
                throw new IllegalArgumentException("frames: " + frames + " (expected: 1+)");
            }
            if (strideFrames < 1) {
                throw new IllegalArgumentException("strideFrames: " + strideFrames + " (expected: 1+)");
            }
            Objects.requireNonNull(pastEnd, "pastEnd");
        }

        @Override
        public int frameCount() {
            return frames;
        }

        @Override
        public Strided withPastEnd(PastEndPolicy policy) {
            return new Strided(startSeconds, frames, strideFrames, policy);
        }
    }

    /** Timestamp sampling at a fixed rate, for variable-frame-rate or mixed-rate datasets. */
    record Resampled(double startSeconds, double durationSeconds, double framesPerSecond, PastEndPolicy pastEnd)
            implements ClipSpec {
        public Resampled {
            requireStart(startSeconds);
            if (!(durationSeconds > 0) || !Double.isFinite(durationSeconds)) {
                throw new IllegalArgumentException("durationSeconds: " + durationSeconds + " (expected: > 0)");
            }
            if (!(framesPerSecond > 0) || !Double.isFinite(framesPerSecond)) {
                throw new IllegalArgumentException("framesPerSecond: " + framesPerSecond + " (expected: > 0)");
            }
            Objects.requireNonNull(pastEnd, "pastEnd");
        }

        /** {@code round(durationSeconds * framesPerSecond)}, at least 1. */
        @Override
        public int frameCount() {
            return (int) Math.max(1, Math.round(durationSeconds * framesPerSecond));
        }

        @Override
        public Resampled withPastEnd(PastEndPolicy policy) {
            return new Resampled(startSeconds, durationSeconds, framesPerSecond, policy);
        }
    }

    private static void requireStart(double startSeconds) {
        if (!(startSeconds >= 0) || !Double.isFinite(startSeconds)) {
            throw new IllegalArgumentException("startSeconds: " + startSeconds + " (expected: >= 0)");
        }
    }
}
