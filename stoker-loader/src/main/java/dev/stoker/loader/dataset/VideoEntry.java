package dev.stoker.loader.dataset;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
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
 * @param text the sample's text (a caption, as video-text datasets pair with each clip), as the dataset holds it (a
 *             manifest's field stripped of the blanks around it); empty when the dataset gives the sample none or an
 *             empty one
 */
public record VideoEntry(Path path, int label, String className, OptionalDouble startSeconds,
                         OptionalDouble endSeconds, Optional<String> text) {

    public VideoEntry {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(startSeconds, "startSeconds");
        Objects.requireNonNull(endSeconds, "endSeconds");
        Objects.requireNonNull(text, "text");
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

    /** An entry without text. */
    public VideoEntry(Path path, int label, String className, OptionalDouble startSeconds, OptionalDouble endSeconds) {
        this(path, label, className, startSeconds, endSeconds, Optional.empty());
    }

    /** A whole-video entry without text. */
    public VideoEntry(Path path, int label, String className) {
        this(path, label, className, OptionalDouble.empty(), OptionalDouble.empty(), Optional.empty());
    }
}
