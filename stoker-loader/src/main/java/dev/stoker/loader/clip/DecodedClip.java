package dev.stoker.loader.clip;

import java.util.List;

/**
 * What a decoded clip holds; the pixels are in the request's destination.
 *
 * @param path           the video's path
 * @param width          output frame width
 * @param height         output frame height
 * @param frameIndices   for each slot, the video frame it shows (0-based, in presentation order)
 * @param ptsSeconds     for each slot, that frame's presentation time from the first frame
 * @param decodedFrames  frames the decoder produced for this clip (including ones not output);
 *                       a cost measure: the lower, the less work was spent per clip
 * @param shifted        true when {@link PastEndPolicy#SHIFT} moved the start earlier
 * @param repeatedFrames slots filled by repeating the last frame
 * @param leadFrames     the decode lead of the clip's first frame by its video's index
 *                       ({@link KeyframeIndex#decodeLeadFrames}): frames between the keyframe a decode must start
 *                       at and that frame; -1 when not known
 */
public record DecodedClip(String path, int width, int height, List<Integer> frameIndices, List<Double> ptsSeconds,
                          int decodedFrames, boolean shifted, int repeatedFrames, int leadFrames) {
    public DecodedClip {
        frameIndices = List.copyOf(frameIndices);
        ptsSeconds = List.copyOf(ptsSeconds);
        if (leadFrames < -1) {
            throw new IllegalArgumentException("leadFrames: " + leadFrames + " (expected: -1 when not known, or 0+)");
        }
    }

    /** A clip whose first frame's decode lead is not known. */
    public DecodedClip(String path, int width, int height, List<Integer> frameIndices, List<Double> ptsSeconds,
                       int decodedFrames, boolean shifted, int repeatedFrames) {
        this(path, width, height, frameIndices, ptsSeconds, decodedFrames, shifted, repeatedFrames, -1);
    }

    public int frameCount() { return frameIndices.size(); }

    /** Bytes of one frame in the destination. */
    public long frameBytes() {
        return (long) width * height * 3;
    }
}
