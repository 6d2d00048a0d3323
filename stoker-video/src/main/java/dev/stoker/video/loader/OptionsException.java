package dev.stoker.video.loader;

/**
 * A value of the options document that is not one, or a place that is not in it: names the path and what was
 * expected there ({@code "clip.frames: 0 (expected: 1+)"}), the same words the Python bridge uses.
 */
public final class OptionsException extends IllegalArgumentException {
    private final String path;

    public OptionsException(String path, String problem) {
        super(path + ": " + problem);
        this.path = path;
    }

    /** Where in the document: {@code "clip.frames"}. */
    public String path() {
        return path;
    }
}
