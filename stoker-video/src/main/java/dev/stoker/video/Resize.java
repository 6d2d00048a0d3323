package dev.stoker.video;

import java.util.Objects;

/**
 * How decoded frames become the output size. All geometry is in the displayed (rotated, upright)
 * orientation. Output is always RGB24, HWC, rows packed ({@code width * 3} bytes).
 *
 * @param mode      the strategy
 * @param width     output width in pixels (0 for {@link Mode#ORIGINAL})
 * @param height    output height in pixels (0 for {@link Mode#ORIGINAL})
 * @param shortSide short side after resizing, before cropping (crop modes only; raised when
 *                  needed so the crop fits)
 * @param seed      chooses the crop position for {@link Mode#SHORT_SIDE_RANDOM_CROP}; the same seed
 *                  gives the same crop
 */
public record Resize(Mode mode, int width, int height, int shortSide, long seed) {

    /** Resize strategies. */
    public enum Mode {
        /** The displayed size, unscaled. */
        ORIGINAL,
        /** Scale to exactly width x height, ignoring aspect ratio. */
        STRETCH,
        /** Scale the short side to {@code shortSide}, then cut the centred width x height. */
        SHORT_SIDE_CENTER_CROP,
        /** Scale the short side to {@code shortSide}, then cut width x height at a seeded position. */
        SHORT_SIDE_RANDOM_CROP
    }

    public Resize {
        Objects.requireNonNull(mode, "mode");
        if (mode != Mode.ORIGINAL && (width < 1 || height < 1)) {
            throw new IllegalArgumentException("size: " + width + "x" + height + " (expected: 1x1+)");
        }
        if ((mode == Mode.SHORT_SIDE_CENTER_CROP || mode == Mode.SHORT_SIDE_RANDOM_CROP) && shortSide < 1) {
            throw new IllegalArgumentException("shortSide: " + shortSide + " (expected: 1+)");
        }
    }

    public static Resize original() {
        return new Resize(Mode.ORIGINAL, 0, 0, 0, 0);
    }

    public static Resize stretch(int width, int height) {
        return new Resize(Mode.STRETCH, width, height, 0, 0);
    }

    public static Resize centerCrop(int shortSide, int width, int height) {
        return new Resize(Mode.SHORT_SIDE_CENTER_CROP, width, height, shortSide, 0);
    }

    public static Resize randomCrop(int shortSide, int width, int height, long seed) {
        return new Resize(Mode.SHORT_SIDE_RANDOM_CROP, width, height, shortSide, seed);
    }

    /** Output width for a video of this displayed size. */
    public int outputWidth(VideoInfo info) {
        return mode == Mode.ORIGINAL ? info.displayWidth() : width;
    }

    /** Output height for a video of this displayed size. */
    public int outputHeight(VideoInfo info) {
        return mode == Mode.ORIGINAL ? info.displayHeight() : height;
    }

    /** Bytes of one output frame: {@code outputWidth * outputHeight * 3}. */
    public long frameBytes(VideoInfo info) {
        return (long) outputWidth(info) * outputHeight(info) * 3;
    }
}
