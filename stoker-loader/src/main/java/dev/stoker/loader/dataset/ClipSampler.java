package dev.stoker.loader.dataset;

/**
 * Chooses where clips start in a video whose duration is known only once it is opened.
 *
 * <p>Every start lies in {@code [0, videoSeconds - clipSeconds]} and starts come in ascending order,
 * so a decoder visits them front to back. A video shorter than one clip yields start 0 (the decoder's
 * past-end policy then pads or repeats); {@link #random} and {@link #uniform} still return their
 * fixed count of starts so that every video contributes the same number of clips.
 */
public sealed interface ClipSampler permits RandomClipSampler, UniformClipSampler, WindowClipSampler, FixedClipSampler {

    /**
     * Clip start times, in seconds from the start of the video.
     *
     * @param videoSeconds the video's duration (0+)
     * @param clipSeconds the duration one clip spans (0+)
     * @param epoch the training epoch; only random sampling depends on it
     * @param videoIndex the video's index in its dataset; only random sampling depends on it
     */
    double[] clipStarts(double videoSeconds, double clipSeconds, long epoch, int videoIndex);

    /**
     * Clip starts within the entry's {@code [startSeconds, endSeconds]} range (clamped to the video),
     * in seconds from the start of the video.
     */
    default double[] clipStarts(VideoEntry entry, double videoSeconds, double clipSeconds, long epoch,
                                int videoIndex) {
        checkDurations(videoSeconds, clipSeconds);
        double from = Math.min(entry.startSeconds().orElse(0), videoSeconds);
        double to = Math.min(entry.endSeconds().orElse(videoSeconds), videoSeconds);
        double[] starts = clipStarts(Math.max(0, to - from), clipSeconds, epoch, videoIndex);
        for (int i = 0; i < starts.length; i++) {
            starts[i] += from;
        }
        return starts;
    }

    /**
     * {@code clipsPerVideo} starts drawn uniformly at random, as a deterministic function of
     * ({@code seed}, epoch, video index): reruns and resumed runs see the same clips, and every epoch
     * sees new ones.
     */
    static ClipSampler random(int clipsPerVideo, long seed) {
        return new RandomClipSampler(requireClips(clipsPerVideo), seed);
    }

    /**
     * {@code clipsPerVideo} evenly spaced starts from the first to the last possible one (a single clip
     * is centred); the usual test-time sampling.
     */
    static ClipSampler uniform(int clipsPerVideo) {
        return new UniformClipSampler(requireClips(clipsPerVideo));
    }

    /** Every window: starts at 0, {@code stepSeconds}, 2·{@code stepSeconds}, … as long as a clip fits. */
    static ClipSampler windows(double stepSeconds) {
        return new WindowClipSampler(stepSeconds);
    }

    /**
     * One clip a video at {@code startSeconds} (from the start of the entry's range), whatever the video's length:
     * a fixed window such as SPDL's example's first half second. Its clip spec decides what a window past the
     * video's end holds.
     */
    static ClipSampler fixed(double startSeconds) {
        return new FixedClipSampler(startSeconds);
    }

    /** Latest start at which a whole clip fits; 0 when the video is shorter than a clip. */
    static double lastStart(double videoSeconds, double clipSeconds) {
        checkDurations(videoSeconds, clipSeconds);
        return Math.max(0, videoSeconds - clipSeconds);
    }

    private static int requireClips(int clipsPerVideo) {
        if (clipsPerVideo < 1) {
            throw new IllegalArgumentException("clipsPerVideo: " + clipsPerVideo + " (expected: 1+)");
        }
        return clipsPerVideo;
    }

    private static void checkDurations(double videoSeconds, double clipSeconds) {
        if (!(videoSeconds >= 0) || Double.isInfinite(videoSeconds)) {
            throw new IllegalArgumentException("videoSeconds: " + videoSeconds + " (expected: finite, 0+)");
        }
        if (!(clipSeconds >= 0) || Double.isInfinite(clipSeconds)) {
            throw new IllegalArgumentException("clipSeconds: " + clipSeconds + " (expected: finite, 0+)");
        }
    }
}
