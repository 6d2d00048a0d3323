package dev.stoker.loader.dataset;

import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One labelled video of a {@link Dataset}, optionally restricted to a time range (as in manifests that
 * cut many samples out of one long video).
 *
 * @param path the video file
 * @param label class index into {@link Dataset#classNames()}
 * @param className the class name the label stands for
 * @param startSeconds where the usable range starts; empty means the start of the video
 * @param endSeconds where the usable range ends; empty means the end of the video
 */
public record VideoEntry(Path path, int label, String className, OptionalDouble startSeconds,
                         OptionalDouble endSeconds) {

    public VideoEntry {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(startSeconds, "startSeconds");
        Objects.requireNonNull(endSeconds, "endSeconds");
        if (label < 0) {
            throw new IllegalArgumentException("label: " + label + " (expected: 0+)");
        }
        if (startSeconds.isPresent() && !(startSeconds.getAsDouble() >= 0 && Double.isFinite(startSeconds.getAsDouble()))) {
            throw new IllegalArgumentException("startSeconds: " + startSeconds.getAsDouble() + " (expected: 0+)");
        }
        if (endSeconds.isPresent()) {
            double end = endSeconds.getAsDouble();
            double start = startSeconds.orElse(0);
            if (!(end > start) || !Double.isFinite(end)) {
                throw new IllegalArgumentException("endSeconds: " + end + " (expected: > " + start + ")");
            }
        }
    }

    /** A whole-video entry. */
    public VideoEntry(Path path, int label, String className) {
        this(path, label, className, OptionalDouble.empty(), OptionalDouble.empty());
    }
}
