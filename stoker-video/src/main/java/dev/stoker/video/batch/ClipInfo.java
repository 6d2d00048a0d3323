package dev.stoker.video.batch;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * What one clip in a batch came from: the file, its label, the presentation time of each frame it holds
 * and how many frames the decoder had to decode to produce them (seek cost included).
 */
public record ClipInfo(Path path, int label, double[] frameTimestampsSeconds, int framesDecoded) {

    public ClipInfo {
        Objects.requireNonNull(path, "path");
        if (label < 0) {
            throw new IllegalArgumentException("label: " + label + " (expected: 0+)");
        }
        if (framesDecoded < 0) {
            throw new IllegalArgumentException("framesDecoded: " + framesDecoded + " (expected: 0+)");
        }
        frameTimestampsSeconds = frameTimestampsSeconds.clone();
    }

    @Override
    public double[] frameTimestampsSeconds() {
        return frameTimestampsSeconds.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClipInfo that && path.equals(that.path) && label == that.label
                && framesDecoded == that.framesDecoded
                && Arrays.equals(frameTimestampsSeconds, that.frameTimestampsSeconds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, label, framesDecoded, Arrays.hashCode(frameTimestampsSeconds));
    }

    @Override
    public String toString() {
        return "ClipInfo[path=" + path + ", label=" + label + ", frameTimestampsSeconds="
                + Arrays.toString(frameTimestampsSeconds) + ", framesDecoded=" + framesDecoded + "]";
    }
}
