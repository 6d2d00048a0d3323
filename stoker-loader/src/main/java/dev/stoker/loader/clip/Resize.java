package dev.stoker.loader.clip;

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

    /** A rectangle of a decoded picture, in coded (unrotated) pixels. */
    public record Window(int x, int y, int width, int height) {
    }

    /**
     * The region of a decoded {@code codedWidth × codedHeight} picture that this resize turns into the
     * {@code outWidth × outHeight} output, displayed after a clockwise {@code rotation}: for the crop modes,
     * the part the short-side resize and the crop at {@code cropX, cropY} (in [0, 1]; 0.5 centres it) keep;
     * else the whole picture. Its corner moves by whole chroma samples ({@code 1 << chromaShiftX} pixels
     * across, {@code 1 << chromaShiftY} down), as plane pointers can. The single definition of which pixels a
     * clip shows, shared by the CPU converter and the GPU's kernel.
     */
    public Window sourceWindow(int rotation, int codedWidth, int codedHeight, double cropX, double cropY, int outWidth,
                               int outHeight, int chromaShiftX, int chromaShiftY) {
        boolean quarterTurn = rotation == 90 || rotation == 270;
        int displayWidth = quarterTurn ? codedHeight : codedWidth;
        int displayHeight = quarterTurn ? codedWidth : codedHeight;
        int x = 0;
        int y = 0;
        int w = displayWidth;
        int h = displayHeight;
        if (mode == Mode.SHORT_SIDE_CENTER_CROP || mode == Mode.SHORT_SIDE_RANDOM_CROP) {
            double scale = Math.max((double) shortSide / Math.min(displayWidth, displayHeight),
                    Math.max((double) outWidth / displayWidth, (double) outHeight / displayHeight));
            w = Math.clamp(Math.round(outWidth / scale), 1, displayWidth);
            h = Math.clamp(Math.round(outHeight / scale), 1, displayHeight);
            x = (int) Math.round((displayWidth - w) * cropX);
            y = (int) Math.round((displayHeight - h) * cropY);
        }
        Window coded = switch (rotation) {
            case 90 -> new Window(y, codedHeight - x - w, h, w);
            case 180 -> new Window(codedWidth - x - w, codedHeight - y - h, w, h);
            case 270 -> new Window(codedWidth - y - h, x, h, w);
            default -> new Window(x, y, w, h);
        };
        int alignedX = coded.x() >> chromaShiftX << chromaShiftX;
        int alignedY = coded.y() >> chromaShiftY << chromaShiftY;
        return new Window(alignedX, alignedY, Math.min(coded.width(), codedWidth - alignedX),
                Math.min(coded.height(), codedHeight - alignedY));
    }
}
