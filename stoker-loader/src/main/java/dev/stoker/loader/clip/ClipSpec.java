package dev.stoker.loader.clip;

import java.util.Objects;

/**
 * Which frames of a video make a clip. Time {@code startSeconds} counts from the video's first
 * frame; the clip's first frame is the first frame whose presentation time is at or after it.
 */
public sealed interface ClipSpec permits ClipSpec.Strided, ClipSpec.Resampled, ClipSpec.Linspace, ClipSpec.Segments {

    double startSeconds();

    /** Number of frames the clip holds. */
    int frameCount();

    PastEndPolicy pastEnd();

    ClipSpec withPastEnd(PastEndPolicy policy);

    /** The part of the video the clip's frames come from; {@link Bounds#WHOLE} unless {@link #within} narrowed it. */
    Bounds bounds();

    /**
     * This clip with its frames taken from {@code bounds} alone: the frames shown there stand for the whole video, so
     * that the past-end policy acts at the bounds' end (a manifest entry's range, which a shard stores alone) and a
     * clip never starts before their start.
     */
    ClipSpec within(Bounds bounds);

    /**
     * A span of the video, {@code [fromSeconds, toSeconds)} ({@code toSeconds} infinite: to the video's end): the frames
     * at or after {@code fromSeconds} and before {@code toSeconds}, as ingest cuts a manifest entry's range.
     */
    record Bounds(double fromSeconds, double toSeconds) {
        /** The whole video. */
        public static final Bounds WHOLE = new Bounds(0, Double.POSITIVE_INFINITY);

        public Bounds {
            requireStart(fromSeconds);
            if (!(toSeconds > fromSeconds)) {
                throw new IllegalArgumentException("toSeconds: " + toSeconds + " (expected: above fromSeconds, "
                        + fromSeconds + "; infinite for the video's end)");
            }
        }

        public boolean whole() {
            return equals(WHOLE);
        }

        /** {@code [1.0, 2.0) s}; {@code whole} for the whole video, so that a spec's text stays short. */
        @Override
        public String toString() {
            return whole() ? "whole" : "[" + fromSeconds + ", " + toSeconds + ") s";
        }
    }

    /** {@code frames} frames, {@code strideFrames} apart in the video's own frame sequence. */
    static Strided frames(double startSeconds, int frames, int strideFrames) {
        return new Strided(startSeconds, frames, strideFrames, PastEndPolicy.SHIFT, Bounds.WHOLE);
    }

    /**
     * {@code durationSeconds} of video resampled to {@code framesPerSecond} by timestamps: slot k
     * holds the first frame whose time is at or after {@code startSeconds + k / framesPerSecond}
     * (nearest not earlier, so a slot never shows a moment before its sampling time). Frames repeat
     * when the requested rate exceeds the video's.
     */
    static Resampled resampled(double startSeconds, double durationSeconds, double framesPerSecond) {
        return new Resampled(startSeconds, durationSeconds, framesPerSecond, PastEndPolicy.SHIFT, Bounds.WHOLE);
    }

    /**
     * {@code frames} frames spread evenly over the frames shown in {@code [startSeconds, startSeconds +
     * durationSeconds)}: slot k holds window frame {@code floor(k * (n - 1) / (frames - 1))} of its {@code n}
     * (torch's {@code linspace(0, n - 1, frames).long()}); a window of fewer than {@code frames} frames gives all
     * of them, the last repeated (SPDL's video classification example decodes {@code [0, 0.5 s)} and picks 16
     * this way).
     */
    static Linspace linspace(double startSeconds, double durationSeconds, int frames) {
        return new Linspace(startSeconds, durationSeconds, frames, PastEndPolicy.REPEAT_LAST, Bounds.WHOLE);
    }

    /**
     * One frame from each of {@code frames} equal segments of the frames shown in {@code [startSeconds, endSeconds)}
     * ({@code endSeconds} infinite: to the video's end): TSN's sampling, which TSM and VideoMAE's Something-Something
     * recipe train with. Of the {@code n} frames, the test sampling takes frame {@code floor((2k + 1) n / (2 frames))}
     * for segment k (mmaction2's test offsets, exactly: its float arithmetic lands a frame low on some exact integers);
     * with {@code random}, segment k holds frames {@code floor(k n / frames)} up to {@code floor((k + 1) n / frames)}
     * and gives one drawn uniformly from {@code seed} (the training sampling). Fewer frames than segments repeat frames,
     * still in order.
     */
    static Segments segments(double startSeconds, double endSeconds, int frames, boolean random, long seed) {
        return segments(startSeconds, endSeconds, frames, random, seed, -1);
    }

    /**
     * {@link #segments} under a decode budget: a segment gives only a frame whose decode lead (frames between the
     * keyframe decoding must start at and the frame) is at most {@code maxLeadFrames}, 0 for keyframes: the eligible
     * frame nearest its middle, or one drawn uniformly among its eligible frames; a segment with none gives its cheapest
     * frame (the first of least lead). -1: no budget.
     */
    static Segments segments(double startSeconds, double endSeconds, int frames, boolean random, long seed,
                             int maxLeadFrames) {
        return new Segments(startSeconds, endSeconds, frames, random, seed, maxLeadFrames, PastEndPolicy.REPEAT_LAST,
                Bounds.WHOLE);
    }

    /** Frame-sequence sampling: {@code frames} frames with {@code strideFrames} between them. */
    record Strided(double startSeconds, int frames, int strideFrames, PastEndPolicy pastEnd, Bounds bounds)
            implements ClipSpec {
        public Strided {
            requireStart(startSeconds);
            requireFrames(frames);
            if (strideFrames < 1) {
                throw new IllegalArgumentException("strideFrames: " + strideFrames + " (expected: 1+)");
            }
            Objects.requireNonNull(pastEnd, "pastEnd");
            Objects.requireNonNull(bounds, "bounds");
        }

        @Override
        public int frameCount() { return frames; }

        @Override
        public Strided withPastEnd(PastEndPolicy policy) {
            return new Strided(startSeconds, frames, strideFrames, policy, bounds);
        }

        @Override
        public Strided within(Bounds bounds) {
            return new Strided(startSeconds, frames, strideFrames, pastEnd, bounds);
        }
    }

    /** Timestamp sampling at a fixed rate, for variable-frame-rate or mixed-rate datasets. */
    record Resampled(double startSeconds, double durationSeconds, double framesPerSecond, PastEndPolicy pastEnd,
                     Bounds bounds) implements ClipSpec {
        public Resampled {
            requireStart(startSeconds);
            requirePositive("durationSeconds", durationSeconds);
            requirePositive("framesPerSecond", framesPerSecond);
            Objects.requireNonNull(pastEnd, "pastEnd");
            Objects.requireNonNull(bounds, "bounds");
        }

        /** {@code round(durationSeconds * framesPerSecond)}, at least 1. */
        @Override
        public int frameCount() {
            return (int) Math.max(1, Math.round(durationSeconds * framesPerSecond));
        }

        @Override
        public Resampled withPastEnd(PastEndPolicy policy) {
            return new Resampled(startSeconds, durationSeconds, framesPerSecond, policy, bounds);
        }

        @Override
        public Resampled within(Bounds bounds) {
            return new Resampled(startSeconds, durationSeconds, framesPerSecond, pastEnd, bounds);
        }
    }

    /**
     * A time window's frames picked by linspace. A window past the video's end takes what it holds; one with no
     * frame at all takes the video's last frame, unless {@link PastEndPolicy#SKIP} (then it fails).
     */
    record Linspace(double startSeconds, double durationSeconds, int frames, PastEndPolicy pastEnd, Bounds bounds)
            implements ClipSpec {
        public Linspace {
            requireStart(startSeconds);
            requirePositive("durationSeconds", durationSeconds);
            requireFrames(frames);
            Objects.requireNonNull(pastEnd, "pastEnd");
            Objects.requireNonNull(bounds, "bounds");
        }

        @Override
        public int frameCount() { return frames; }

        @Override
        public Linspace withPastEnd(PastEndPolicy policy) {
            return new Linspace(startSeconds, durationSeconds, frames, policy, bounds);
        }

        @Override
        public Linspace within(Bounds bounds) {
            return new Linspace(startSeconds, durationSeconds, frames, pastEnd, bounds);
        }
    }

    /**
     * A range's frames, one from each of {@code frames} equal segments ({@link #segments}). A range with no frame takes
     * the video's last frame, unless {@link PastEndPolicy#SKIP} (then it fails).
     */
    record Segments(double startSeconds, double endSeconds, int frames, boolean random, long seed, int maxLeadFrames,
                    PastEndPolicy pastEnd, Bounds bounds) implements ClipSpec {
        public Segments {
            requireStart(startSeconds);
            if (!(endSeconds > startSeconds)) {
                throw new IllegalArgumentException("endSeconds: " + endSeconds + " (expected: above startSeconds, "
                        + startSeconds + "; infinite for the video's end)");
            }
            requireFrames(frames);
            if (maxLeadFrames < -1) {
                throw new IllegalArgumentException("maxLeadFrames: " + maxLeadFrames + " (expected: -1 for no budget, or 0+)");
            }
            Objects.requireNonNull(pastEnd, "pastEnd");
            Objects.requireNonNull(bounds, "bounds");
        }

        @Override
        public int frameCount() { return frames; }

        @Override
        public Segments withPastEnd(PastEndPolicy policy) {
            return new Segments(startSeconds, endSeconds, frames, random, seed, maxLeadFrames, policy, bounds);
        }

        @Override
        public Segments within(Bounds bounds) {
            return new Segments(startSeconds, endSeconds, frames, random, seed, maxLeadFrames, pastEnd, bounds);
        }
    }

    private static void requireFrames(int frames) {
        if (frames < 1) {
            throw new IllegalArgumentException("frames: " + frames + " (expected: 1+)");
        }
    }

    /** A length of time or a rate: finite and above 0 ({@code NaN} fails too). */
    private static void requirePositive(String name, double value) {
        if (!(value > 0) || !Double.isFinite(value)) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }

    private static void requireStart(double startSeconds) {
        if (!(startSeconds >= 0) || !Double.isFinite(startSeconds)) {
            throw new IllegalArgumentException("startSeconds: " + startSeconds + " (expected: >= 0)");
        }
    }
}
