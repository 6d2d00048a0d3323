package dev.stoker.loader.dataset;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * A sample's text (a caption) as a dataset stores it beside the video: a {@code .txt} file or member, UTF-8, delivered
 * as written (a trailing newline included, as WebDataset's own decoder gives it). An empty one is no text, as an empty
 * manifest field is: a sample has a text with something in it, or none.
 */
final class SampleText {
    /** The extension of a text beside its video: {@code clip.txt} for {@code clip.mp4}, as video2dataset writes. */
    static final String EXTENSION = "txt";
    /** A caption is short; a text this long is a mistake (a video named .txt), not a caption, and would fill the heap. */
    static final int MAX_BYTES = 1 << 20;

    private SampleText() {
    }

    /** Whether a file or member name is a text's: it ends in {@code .txt}, any case. */
    static boolean isTextName(String name) {
        return name.toLowerCase(Locale.ROOT).endsWith("." + EXTENSION);
    }

    /** Reads a text file (the one a folder tree pairs with a video). */
    static Optional<String> read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw tooLong(file, size);
        }
        return decode(Files.readAllBytes(file), file);
    }

    /** {@code bytes} as text (none if empty), refusing what is not UTF-8 rather than delivering replacement characters. */
    static Optional<String> decode(byte[] bytes, Object where) throws InvalidDatasetException {
        if (bytes.length > MAX_BYTES) {
            throw tooLong(where, bytes.length);
        }
        if (bytes.length == 0) {
            return Optional.empty();
        }
        String text = Utf8.decode(bytes, where, "a text");
        // A byte order mark is how some editors mark UTF-8, not part of the caption.
        text = text.startsWith("\uFEFF") ? text.substring(1) : text;
        return text.isEmpty() ? Optional.empty() : Optional.of(text);
    }

    static InvalidDatasetException tooLong(Object where, long bytes) {
        return new InvalidDatasetException(where + ": a text of " + bytes + " bytes (expected: a caption, at most "
                + MAX_BYTES + " bytes)");
    }
}
