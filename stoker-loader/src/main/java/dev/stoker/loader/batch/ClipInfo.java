package dev.stoker.loader.batch;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * What one clip in a batch came from: the file, its label, the presentation time of each frame it holds
 * and how many frames the decoder had to decode to produce them (seek cost included).
 *
 * @param leadFrames the decode lead of the clip's first frame in the video it was cut from, by that video's index:
 *                   frames between the keyframe a decode must start at and the frame (what
 *                   {@code --max-lead-frames} bounds); -1 when not known
 * @param text the text its sample carries in the dataset (a caption), as the dataset holds it; empty when none
 */
public record ClipInfo(Path path, int label, double[] frameTimestampsSeconds, int framesDecoded, int leadFrames,
                       Optional<String> text) {

    /** A clip without text. */
    public ClipInfo(Path path, int label, double[] frameTimestampsSeconds, int framesDecoded, int leadFrames) {
        this(path, label, frameTimestampsSeconds, framesDecoded, leadFrames, Optional.empty());
    }

    /** A clip without text whose decode lead is not known. */
    public ClipInfo(Path path, int label, double[] frameTimestampsSeconds, int framesDecoded) {
        this(path, label, frameTimestampsSeconds, framesDecoded, -1, Optional.empty());
    }

    public ClipInfo {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(text, "text");
        if (label < 0) {
            throw new IllegalArgumentException("label: " + label + " (expected: 0+)");
        }
        if (framesDecoded < 0) {
            throw new IllegalArgumentException("framesDecoded: " + framesDecoded + " (expected: 0+)");
        }
        if (leadFrames < -1) {
            throw new IllegalArgumentException("leadFrames: " + leadFrames + " (expected: -1 when not known, or 0+)");
        }
        frameTimestampsSeconds = frameTimestampsSeconds.clone();
    }

    @Override
    public double[] frameTimestampsSeconds() { return frameTimestampsSeconds.clone(); }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClipInfo that && path.equals(that.path) && label == that.label
                && framesDecoded == that.framesDecoded && leadFrames == that.leadFrames
                && Arrays.equals(frameTimestampsSeconds, that.frameTimestampsSeconds) && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, label, framesDecoded, leadFrames, Arrays.hashCode(frameTimestampsSeconds), text);
    }

    @Override
    public String toString() {
        return "ClipInfo[path=" + path + ", label=" + label + ", frameTimestampsSeconds="
                + Arrays.toString(frameTimestampsSeconds) + ", framesDecoded=" + framesDecoded + ", leadFrames=" + leadFrames
                + text.map(t -> ", text=" + t.length() + " chars").orElse("") + "]";
    }
}
