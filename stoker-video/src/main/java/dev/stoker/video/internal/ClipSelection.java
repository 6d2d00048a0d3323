package dev.stoker.video.internal;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.util.SplittableRandom;

/**
 * The frames a {@link ClipSpec} selects in a video, slot by slot, after its past-end policy: exactly what
 * {@link ClipDecoder} decodes for it. {@link #of} is the single place where clip-selection semantics live.
 *
 * @param frames         for each slot, the frame index (0-based, presentation order)
 * @param shifted        true when {@link PastEndPolicy#SHIFT} moved the start earlier
 * @param repeatedFrames slots filled by repeating the last frame
 */
public record ClipSelection(int[] frames, boolean shifted, int repeatedFrames) {
    /** Tolerance when comparing a requested time with frame times: far below any frame interval. */
    static final double EPSILON_SECONDS = KeyframeIndex.EPSILON_SECONDS;

    public ClipSelection {
        frames = frames.clone();
    }

    @Override
    public int[] frames() { return frames.clone(); }

    /**
     * The frames {@code spec} selects in {@code video}; a {@link VideoException} when it is past the end under SKIP, or
     * when the spec's bounds hold no frame of the video.
     */
    public static ClipSelection of(Video video, ClipSpec spec) {
        VideoInfo info = video.info();
        return of(video, info.path(), info.durationSeconds(), spec);
    }

    /**
     * The frames {@code spec} selects among {@code frames}: what {@link #of(Video, ClipSpec)} selects in a video with
     * those frames, without opening one (a shard record's stored frames). {@code path} and {@code durationSeconds}
     * are the video's, for the error when the clip is past the end under SKIP.
     */
    public static ClipSelection of(KeyframeIndex frames, String path, double durationSeconds, ClipSpec spec) {
        Frames video = Frames.within(frames, path, durationSeconds, spec);
        ClipSelection selected = switch (spec) {
            case ClipSpec.Strided strided -> strided(video, strided);
            case ClipSpec.Resampled resampled -> resampled(video, resampled);
            case ClipSpec.Linspace linspace -> linspace(video, linspace);
            case ClipSpec.Segments segments -> segments(video, segments);
        };
        if (video.base() == 0) {
            return selected;
        }
        int[] shown = selected.frames();
        for (int k = 0; k < shown.length; k++) {
            shown[k] += video.base();
        }
        return new ClipSelection(shown, selected.shifted(), selected.repeatedFrames());
    }

    /**
     * The frames selected among: the {@code count} frames from {@code base} that the spec's bounds hold (all of them
     * when it has none), numbered from 0 so that every policy treats the bounds' ends as the video's, as a shard that
     * stores the bounds alone does. The rest says what the past-end error says of their video.
     */
    private record Frames(KeyframeIndex index, int base, int count, ClipSpec.Bounds bounds, String path,
                          double durationSeconds) {
        static Frames within(KeyframeIndex index, String path, double durationSeconds, ClipSpec spec) {
            ClipSpec.Bounds bounds = spec.bounds();
            if (bounds.whole()) {
                return new Frames(index, 0, index.frameCount(), bounds, path, durationSeconds);
            }
            int first = KeyframeIndex.firstAtOrAfter(index, bounds.fromSeconds());
            int end = Double.isInfinite(bounds.toSeconds()) ? index.frameCount()
                    : KeyframeIndex.firstAtOrAfter(index, bounds.toSeconds());
            Frames frames = new Frames(index, first, Math.max(0, end - first), bounds, path, durationSeconds);
            if (frames.count == 0) {
                // Whatever the policy: a clip from elsewhere would show what the range leaves out.
                throw outOfRange(frames, spec, "needs a frame of its range", "");
            }
            return frames;
        }

        int frameCount() { return count; }

        double frameTimeSeconds(int frame) {
            return index.frameTimeSeconds(base + frame);
        }

        int decodeLeadFrames(int frame) {
            return index.decodeLeadFrames(base + frame);
        }

        /** Where a clip shifted back may start at the earliest: the video's 0, or the range's first frame. */
        double earliestSeconds() {
            return bounds.whole() ? 0 : frameTimeSeconds(0);
        }
    }

    private static ClipSelection strided(Frames video, ClipSpec.Strided spec) {
        int n = video.frameCount();
        int span = (spec.frames() - 1) * spec.strideFrames();
        int first = firstAtOrAfter(video, spec.startSeconds());
        boolean shifted = false;
        if ((long) first + span > n - 1) {
            switch (spec.pastEnd()) {
                case SKIP -> throw outOfRange(video, spec, "needs frames " + first + ".." + ((long) first + span));
                case SHIFT -> {
                    int moved = Math.max(0, n - 1 - span);
                    shifted = moved != first;
                    first = moved;
                }
                case REPEAT_LAST -> first = Math.min(first, n - 1);
            }
        }
        int[] frames = new int[spec.frames()];
        int repeated = 0;
        for (int k = 0; k < frames.length; k++) {
            long frame = (long) first + (long) k * spec.strideFrames();
            if (frame > n - 1) {
                frame = n - 1;
                repeated++;
            }
            frames[k] = (int) frame;
        }
        return new ClipSelection(frames, shifted, repeated);
    }

    private static ClipSelection resampled(Frames video, ClipSpec.Resampled spec) {
        int n = video.frameCount();
        int count = spec.frameCount();
        double last = video.frameTimeSeconds(n - 1);
        double start = spec.startSeconds();
        double end = start + (count - 1) / spec.framesPerSecond();
        boolean shifted = false;
        if (end > last + EPSILON_SECONDS) {
            switch (spec.pastEnd()) {
                case SKIP -> throw outOfRange(video, spec, "needs times up to " + end + " s");
                case SHIFT -> {
                    double moved = Math.max(video.earliestSeconds(), last - (count - 1) / spec.framesPerSecond());
                    shifted = moved < start;
                    start = moved;
                }
                case REPEAT_LAST -> {
                }
            }
        }
        int[] frames = new int[count];
        int repeated = 0;
        for (int k = 0; k < count; k++) {
            int frame = firstAtOrAfter(video, start + k / spec.framesPerSecond());
            if (frame > n - 1) {
                frame = n - 1;
                repeated++;
            }
            frames[k] = frame;
        }
        return new ClipSelection(frames, shifted, repeated);
    }

    /** The frames shown in a time range, {@code [first, end)}; {@code shifted} when an empty one fell back to the last. */
    private record Range(int first, int end, boolean shifted) {
    }

    /**
     * The frames shown in {@code [fromSeconds, toSeconds)} ({@code toSeconds} infinite: to the video's end). A range with
     * no frame is the video's last frame, or under {@link PastEndPolicy#SKIP} an error naming the range.
     */
    private static Range range(Frames video, ClipSpec spec, double fromSeconds, double toSeconds) {
        int n = video.frameCount();
        int first = firstAtOrAfter(video, fromSeconds);
        int end = Double.isInfinite(toSeconds) ? n : firstAtOrAfter(video, toSeconds);
        if (end > first) {
            return new Range(first, end, false);
        }
        if (spec.pastEnd() == PastEndPolicy.SKIP) {
            throw outOfRange(video, spec, "has no frame in [" + fromSeconds + ", " + toSeconds + ") s");
        }
        int last = Math.min(first, n - 1);
        return new Range(last, last + 1, first > n - 1);
    }

    private static ClipSelection linspace(Frames video, ClipSpec.Linspace spec) {
        Range range = range(video, spec, spec.startSeconds(), spec.startSeconds() + spec.durationSeconds());
        int first = range.first();
        int end = range.end();
        boolean shifted = range.shifted();
        long shown = end - first;
        int[] frames = new int[spec.frames()];
        int repeated = 0;
        for (int k = 0; k < frames.length; k++) {
            if (shown >= frames.length) {
                // Exact rational steps (torch rounds in float32: the same frames unless a step lands within 1e-7 of one)
                frames[k] = first + (int) (frames.length == 1 ? 0 : k * (shown - 1) / (frames.length - 1));
            } else if (k < shown) {
                frames[k] = first + k;
            } else {
                frames[k] = end - 1;
                repeated++;
            }
        }
        return new ClipSelection(frames, shifted, repeated);
    }

    private static ClipSelection segments(Frames video, ClipSpec.Segments spec) {
        Range range = range(video, spec, spec.startSeconds(), spec.endSeconds());
        int first = range.first();
        long shown = range.end() - first;
        int k = spec.frames();
        SplittableRandom random = spec.random() ? new SplittableRandom(spec.seed()) : null;
        int[] frames = new int[k];
        int repeated = 0;
        for (int segment = 0; segment < k; segment++) {
            long from = segment * shown / k;
            long to = (segment + 1) * shown / k;
            long middle = (2L * segment + 1) * shown / (2L * k);
            long pick;
            if (to <= from) {
                pick = Math.min(from, shown - 1);   // more segments than frames: this one repeats a frame
                repeated++;
            } else if (spec.maxLeadFrames() >= 0) {
                pick = withinBudget(video, first, from, to, middle, spec.maxLeadFrames(), random);
            } else {
                pick = random != null ? from + random.nextLong(to - from) : middle;
            }
            frames[segment] = first + (int) pick;
        }
        return new ClipSelection(frames, range.shifted(), repeated);
    }

    /**
     * A segment's frame ({@code [from, to)}, counted from {@code first}) under a decode budget: one drawn among those of
     * lead at most {@code budget} ({@code random}), or the one of them nearest {@code middle}; with none, the first of
     * least lead. Eligible frames stay within their segment, so the clip's frames still ascend.
     */
    private static long withinBudget(Frames video, int first, long from, long to, long middle, int budget,
                                     SplittableRandom random) {
        long eligible = 0;
        long nearest = -1;
        long cheapest = from;
        int cheapestLead = Integer.MAX_VALUE;
        for (long f = from; f < to; f++) {
            int lead = video.decodeLeadFrames(first + (int) f);
            if (lead <= budget) {
                eligible++;
                if (nearest < 0 || Math.abs(f - middle) < Math.abs(nearest - middle)) {
                    nearest = f;
                }
            }
            if (lead < cheapestLead) {
                cheapestLead = lead;
                cheapest = f;
            }
        }
        if (eligible == 0) {
            return cheapest;
        }
        if (random == null) {
            return nearest;
        }
        long chosen = random.nextLong(eligible);
        for (long f = from; ; f++) {
            if (video.decodeLeadFrames(first + (int) f) <= budget && chosen-- == 0) {
                return f;
            }
        }
    }

    /** The first frame at or after {@code seconds}; {@code frameCount()} when there is none. */
    private static int firstAtOrAfter(Frames video, double seconds) {
        int frame = KeyframeIndex.firstAtOrAfter(video.index(), seconds) - video.base();
        return Math.clamp(frame, 0, video.frameCount());
    }

    private static VideoException outOfRange(Frames video, ClipSpec spec, String detail) {
        return outOfRange(video, spec, detail, " (past-end policy SKIP)");
    }

    private static VideoException outOfRange(Frames video, ClipSpec spec, String detail, String policy) {
        String has = video.bounds().whole() ? "the video has " + video.frameCount() + " frames"
                : "its range " + video.bounds() + " has " + video.frameCount() + " of the video's "
                        + video.index().frameCount() + " frames";
        return new VideoException(video.path(), VideoException.Operation.SELECT_CLIP, FailureReason.OUT_OF_RANGE,
                spec + " " + detail + " but " + has + " over " + String.format("%.3f", video.durationSeconds())
                        + " s" + policy);
    }
}
