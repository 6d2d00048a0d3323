package dev.stoker.loader.clip;

/**
 * A video's frames, their times and what a clip starting at each one costs to reach: the decode lead, the
 * frames between the keyframe a decoder must start at and that frame. What clip sampling under a decode
 * budget draws from ({@code LoaderOptions.Clip#maxLeadFrames}): an opened video ({@code dev.stoker.video.Video}) is one (its demuxer's
 * index), and so is {@link #of} over frame times and keyframes kept elsewhere (a shard records its source's).
 */
public interface KeyframeIndex {
    /** How close two times are to be the same frame's: clips select frames within a microsecond. */
    double EPSILON_SECONDS = 1e-6;

    /** Frames, indexed {@code 0..frameCount()-1} in presentation order. */
    int frameCount();

    /** Presentation time of {@code frame}, in seconds from the first frame. */
    double frameTimeSeconds(int frame);

    /**
     * Frames between the keyframe a decode that reaches {@code frame} starts at and {@code frame}, in
     * presentation order: 0 on a keyframe, {@code frame} when no keyframe precedes it.
     */
    int decodeLeadFrames(int frame);

    /**
     * The index of frames at {@code frameSeconds} (ascending) whose decodes start at the frames {@code keyframes}
     * (ascending frame indices).
     */
    static KeyframeIndex of(double[] frameSeconds, int[] keyframes) {
        return new StoredKeyframeIndex(frameSeconds.clone(), keyframes.clone());
    }

    /** The first frame at or after {@code seconds} (within a microsecond, as clips select); {@code frameCount()} if none. */
    static int firstAtOrAfter(KeyframeIndex index, double seconds) {
        int low = 0;
        int high = index.frameCount();
        double threshold = seconds - EPSILON_SECONDS;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (index.frameTimeSeconds(mid) >= threshold) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }
}
