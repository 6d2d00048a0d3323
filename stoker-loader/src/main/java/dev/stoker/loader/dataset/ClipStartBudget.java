package dev.stoker.loader.dataset;

import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.dataset.internal.ClipStartDraw;
import dev.stoker.loader.dataset.internal.SplitMix;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Clip starts drawn only among the frames whose decode lead (frames between the keyframe a decoder must start at
 * and the clip's first frame) is at most a budget: {@code --max-lead-frames N}, 0 for clips that start on
 * keyframes. A start is a frame, drawn from the video's own index ({@link KeyframeIndex}: the demuxer's, or the one
 * a shard kept of its source), so the clip's reported first frame is the frame drawn and its lead is known.
 *
 * <p>Random starts are drawn uniformly among the eligible frames, as a pure function of (seed, epoch, video index,
 * index), like {@link ClipSampler#random}'s; uniform starts are the eligible frames nearest to the evenly spaced
 * times {@link ClipSampler#uniform} gives. A video with no eligible frame falls back to its cheapest start (the
 * first frame of least lead), for every clip: {@link ClipStartDraw#fallback()}. Window and fixed starts take
 * every step or one set time, so a budget does not apply to them.
 */
public final class ClipStartBudget {
    /** No budget: any start (what {@code maxLeadFrames = -1} means). */
    public static final int NONE = -1;
    /** Tolerance for frame times at the ends of the range, as clip selection uses. */
    private static final double EPSILON_SECONDS = 1e-6;

    private ClipStartBudget() {
    }

    /**
     * The starts of the entry's clips in {@code epoch} among the frames of {@code video} whose decode lead is at
     * most {@code maxLeadFrames}, with the clip spanning {@code clipSeconds} of a video of {@code videoSeconds}.
     *
     * @throws IllegalArgumentException if {@code maxLeadFrames} is below 0 or the sampler takes windows or a fixed time
     */
    public static ClipStartDraw draw(ClipSampler sampler, VideoEntry entry, KeyframeIndex video, double videoSeconds,
                                     double clipSeconds, long epoch, int videoIndex, int maxLeadFrames) {
        if (maxLeadFrames < 0) {
            throw new IllegalArgumentException("maxLeadFrames: " + maxLeadFrames + " (expected: 0+ for a budget)");
        }
        int n = video.frameCount();
        if (n == 0) {
            throw new IllegalArgumentException("video: no frames (expected: 1+ to start a clip at)");
        }
        double from = Math.min(entry.startSeconds().orElse(0), videoSeconds);
        double to = Math.min(entry.endSeconds().orElse(videoSeconds), videoSeconds);
        double last = ClipSampler.lastStart(Math.max(0, to - from), clipSeconds);
        int lo = KeyframeIndex.firstAtOrAfter(video, from);
        int hi = KeyframeIndex.firstAtOrAfter(video, from + last + 2 * EPSILON_SECONDS) - 1;
        if (lo >= n || hi < lo) {
            // No frame in the range (it lies past the last frame): the start an unbudgeted sampler would give.
            lo = Math.min(lo, n - 1);
            hi = lo;
        }
        int fitting = hi - lo + 1;
        int[] eligible = new int[fitting];
        int count = 0;
        int cheapest = lo;
        int cheapestLead = Integer.MAX_VALUE;
        for (int f = lo; f <= hi; f++) {
            int lead = video.decodeLeadFrames(f);
            if (lead <= maxLeadFrames) {
                eligible[count++] = f;
            }
            if (lead < cheapestLead) {
                cheapestLead = lead;
                cheapest = f;
            }
        }
        int[] frames = switch (sampler) {
            case RandomClipSampler random -> count == 0
                    ? repeat(cheapest, random.clipsPerVideo())
                    : randomAmong(eligible, count, random, epoch, videoIndex);
            case UniformClipSampler uniform -> count == 0
                    ? repeat(cheapest, uniform.clipsPerVideo())
                    : nearestAmong(eligible, count, video,
                            sampler.clipStarts(entry, videoSeconds, clipSeconds, epoch, videoIndex));
            case WindowClipSampler windows -> throw new IllegalArgumentException("maxLeadFrames: " + maxLeadFrames
                    + " with window starts (expected: " + NONE + "; windows take every step of "
                    + windows.stepSeconds() + " s)");
            case FixedClipSampler fixed -> throw new IllegalArgumentException("maxLeadFrames: " + maxLeadFrames
                    + " with a clip window (expected: " + NONE + "; the window fixes where its clip starts)");
        };
        double[] starts = new double[frames.length];
        int[] leads = new int[frames.length];
        for (int i = 0; i < frames.length; i++) {
            starts[i] = video.frameTimeSeconds(frames[i]);
            leads[i] = video.decodeLeadFrames(frames[i]);
        }
        return new ClipStartDraw(starts, leads, fitting, count, count == 0);
    }

    private static int[] repeat(int frame, int times) {
        int[] frames = new int[times];
        Arrays.fill(frames, frame);
        return frames;
    }

    /** Seeded as {@link RandomClipSampler} seeds its draws: independent of which videos were visited before. */
    private static int[] randomAmong(int[] eligible, int count, RandomClipSampler sampler, long epoch, int videoIndex) {
        SplittableRandom random = new SplittableRandom(SplitMix.mix(SplitMix.mix(sampler.seed(), epoch), videoIndex));
        int[] frames = new int[sampler.clipsPerVideo()];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = eligible[random.nextInt(count)];
        }
        Arrays.sort(frames);
        return frames;
    }

    /** For each target time, the eligible frame nearest to it (the earlier one on a tie). */
    private static int[] nearestAmong(int[] eligible, int count, KeyframeIndex video, double[] targets) {
        int[] frames = new int[targets.length];
        for (int i = 0; i < targets.length; i++) {
            int low = 0;
            int high = count;   // first eligible frame at or after the target
            while (low < high) {
                int mid = (low + high) >>> 1;
                if (video.frameTimeSeconds(eligible[mid]) >= targets[i]) {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            int best = Math.min(low, count - 1);
            if (low > 0 && (low == count || targets[i] - video.frameTimeSeconds(eligible[low - 1])
                    <= video.frameTimeSeconds(eligible[low]) - targets[i])) {
                best = low - 1;
            }
            frames[i] = eligible[best];
        }
        return frames;
    }
}
