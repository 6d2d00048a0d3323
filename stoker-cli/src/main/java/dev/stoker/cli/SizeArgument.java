package dev.stoker.cli;

import java.util.Locale;

/**
 * The value of a {@code --size S|WxH} flag: one side ({@code 112}), or width and height ({@code 160x120}), each 1+.
 * What one side means is the command's (a square for the loaders, the short side for an ingest).
 *
 * @param single whether one side was given ({@code width == height} then)
 */
record SizeArgument(int width, int height, boolean single) {

    /** Parses {@code text}, refusing a half-written size ({@code 11x}, {@code x11}) rather than reading a square. */
    static SizeArgument parse(String text) {
        String[] parts = text.strip().toLowerCase(Locale.ROOT).split("x", -1);
        try {
            if (parts.length == 1 || parts.length == 2) {
                int width = Integer.parseInt(parts[0]);
                int height = parts.length == 2 ? Integer.parseInt(parts[1]) : width;
                if (width >= 1 && height >= 1) {
                    return new SizeArgument(width, height, parts.length == 1);
                }
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new IllegalArgumentException("--size: " + text + " (expected: S or WxH, each 1 or more, e.g. 112 or"
                + " 160x120)");
    }
}
