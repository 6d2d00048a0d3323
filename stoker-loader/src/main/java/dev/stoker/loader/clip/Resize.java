package dev.stoker.loader.clip;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * How decoded frames become the output size. All geometry is in the displayed (rotated, upright)
 * orientation. Output is always RGB24, HWC, rows packed ({@code width * 3} bytes). What is random about a clip's
 * framing (its crop's position, its scale, a mirror) is drawn from {@code seed} by {@link #framing()}, the one draw
 * every path (the CPU converter, raw shards' copies, the GPU's kernel) frames a clip by, so that the same seed
 * frames a clip alike wherever it is decoded.
 *
 * @param mode         the strategy
 * @param width        output width in pixels (0 for {@link Mode#ORIGINAL})
 * @param height       output height in pixels (0 for {@link Mode#ORIGINAL})
 * @param shortSide    short side after resizing, before cropping (crop modes only; raised when
 *                     needed so the crop fits)
 * @param seed         draws the clip's framing: the crop position for {@link Mode#SHORT_SIDE_RANDOM_CROP}, the
 *                     short side within {@code [shortSide, shortSideMax]}, the mirror; the same seed, the same framing
 * @param shortSideMax scale jitter (crop modes only): each clip's short side is drawn uniformly from
 *                     {@code shortSide} to this, inclusive; 0 or {@code shortSide}: no jitter
 * @param flip         mirror each clip left to right (all its frames alike) with probability 1/2
 * @param areaMin      for {@link Mode#RANDOM_RESIZED_CROP}: the smallest share of the picture a clip's cut covers, in
 *                     (0, 1]; 0 for the other modes
 * @param spatialCrop  which of the {@code spatialCrops} test-time crops this is, from 0 (at the start of the long side)
 * @param spatialCrops with {@link Mode#SHORT_SIDE_CENTER_CROP}: the crops a clip is cut into, spread evenly along the
 *                     picture's long side with the short side centred (PySlowFast's and PyTorchVideo's 3-crop testing
 *                     when 3); 1: the centre crop alone
 */
public record Resize(Mode mode, int width, int height, int shortSide, long seed, int shortSideMax, boolean flip,
                     double areaMin, int spatialCrop, int spatialCrops) {
    /** The aspect ratios (width / height) a random resized crop's cut is drawn between, log-uniformly: torchvision's. */
    public static final double ASPECT_MIN = 3.0 / 4.0;
    public static final double ASPECT_MAX = 4.0 / 3.0;

    /** Four bytes of a row scratch as one int, and back into a segment in the same order. */
    private static final VarHandle PIXEL_LOAD = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt PIXEL_STORE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Resize strategies. */
    public enum Mode {
        /** The displayed size, unscaled. */
        ORIGINAL,
        /** Scale to exactly width x height, ignoring aspect ratio. */
        STRETCH,
        /** Scale the short side to {@code shortSide}, then cut the centred width x height. */
        SHORT_SIDE_CENTER_CROP,
        /** Scale the short side to {@code shortSide}, then cut width x height at a seeded position. */
        SHORT_SIDE_RANDOM_CROP,
        /**
         * Cut a seeded share of the picture ({@code areaMin} to all of it) at a seeded aspect ({@link #ASPECT_MIN} to
         * {@link #ASPECT_MAX}) and position, then scale the cut to width x height: the Inception-style crop of
         * torchvision's {@code RandomResizedCrop} and PySlowFast's {@code random_resized_crop}.
         */
        RANDOM_RESIZED_CROP;

        /** Whether the short side is resized first and the output cut from it. */
        public boolean crops() {
            return this == SHORT_SIDE_CENTER_CROP || this == SHORT_SIDE_RANDOM_CROP;
        }
    }

    public Resize {
        Objects.requireNonNull(mode, "mode");
        if (mode != Mode.ORIGINAL && (width < 1 || height < 1)) {
            throw new IllegalArgumentException("size: " + width + "x" + height + " (expected: 1x1+)");
        }
        if (mode.crops() && shortSide < 1) {
            throw new IllegalArgumentException("shortSide: " + shortSide + " (expected: 1+)");
        }
        if (shortSideMax != 0 && (!mode.crops() || shortSideMax < shortSide)) {
            throw new IllegalArgumentException("shortSideMax: " + shortSideMax + " with " + mode + (mode.crops()
                    ? " and short side " + shortSide + " (expected: 0 for no jitter, or " + shortSide + "+)"
                    : " (expected: 0; scale jitter needs a crop mode)"));
        }
        if (mode == Mode.RANDOM_RESIZED_CROP ? !(areaMin > 0 && areaMin <= 1) : areaMin != 0) {
            throw new IllegalArgumentException("areaMin: " + areaMin + " with " + mode + (mode == Mode.RANDOM_RESIZED_CROP
                    ? " (expected: above 0, at most 1)" : " (expected: 0; only a random resized crop draws an area)"));
        }
        if (spatialCrops < 1 || spatialCrops > 1 && mode != Mode.SHORT_SIDE_CENTER_CROP) {
            throw new IllegalArgumentException("spatialCrops: " + spatialCrops + " with " + mode + (spatialCrops < 1
                    ? " (expected: 1+)" : " (expected: 1; spatial crops are centre crops moved along the long side)"));
        }
        if (spatialCrop < 0 || spatialCrop >= spatialCrops) {
            throw new IllegalArgumentException("spatialCrop: " + spatialCrop + " (expected: 0 to " + (spatialCrops - 1) + ")");
        }
    }

    /** A resize with no spatial crops (one crop of a clip): the components before them, {@code spatialCrops} 1. */
    public Resize(Mode mode, int width, int height, int shortSide, long seed, int shortSideMax, boolean flip,
                  double areaMin) {
        this(mode, width, height, shortSide, seed, shortSideMax, flip, areaMin, 0, 1);
    }

    public static Resize original() {
        return new Resize(Mode.ORIGINAL, 0, 0, 0, 0, 0, false, 0);
    }

    public static Resize stretch(int width, int height) {
        return new Resize(Mode.STRETCH, width, height, 0, 0, 0, false, 0);
    }

    public static Resize centerCrop(int shortSide, int width, int height) {
        return new Resize(Mode.SHORT_SIDE_CENTER_CROP, width, height, shortSide, 0, 0, false, 0);
    }

    public static Resize randomCrop(int shortSide, int width, int height, long seed) {
        return new Resize(Mode.SHORT_SIDE_RANDOM_CROP, width, height, shortSide, seed, 0, false, 0);
    }

    /** A cut of {@code areaMin} to all of the picture, at a seeded aspect and position, scaled to width x height. */
    public static Resize randomResizedCrop(int width, int height, double areaMin, long seed) {
        return new Resize(Mode.RANDOM_RESIZED_CROP, width, height, 0, seed, 0, false, areaMin);
    }

    /**
     * This resize with training augmentations drawn from {@code seed}: the short side jittered up to
     * {@code shortSideMax} (0: none) and, with {@code flip}, a mirror for half the clips.
     */
    public Resize augmented(long seed, int shortSideMax, boolean flip) {
        return new Resize(mode, width, height, shortSide, seed, shortSideMax, flip, areaMin, spatialCrop, spatialCrops);
    }

    /**
     * This centre crop as crop {@code crop} of {@code crops} spread along the long side: crop 0 at its start (the left,
     * or the top of a portrait picture), the last at its end, the short side centred.
     */
    public Resize spatialCrop(int crop, int crops) {
        return new Resize(mode, width, height, shortSide, seed, shortSideMax, flip, areaMin, crop, crops);
    }

    /**
     * How one clip is framed: its crop's position ({@code cropX, cropY} in [0, 1]; 0.5 centres it), the short side
     * its frames are resized to before the crop, whether the output is mirrored left to right, and for a random
     * resized crop the share of the picture its cut covers and the cut's aspect (width / height; 1 otherwise). With
     * {@code alongLongSide} (a spatial crop), {@code cropX} places the crop along the picture's long side, whichever
     * that is, and the short side's crop is centred.
     */
    public record Framing(double cropX, double cropY, int shortSide, boolean mirrored, double area, double aspect,
                          boolean alongLongSide) {
        public Framing {
            if (!(cropX >= 0 && cropX <= 1 && cropY >= 0 && cropY <= 1)) {
                throw new IllegalArgumentException("crop position: " + cropX + ", " + cropY + " (expected: in [0, 1])");
            }
            if (!(area > 0 && area <= 1 && aspect > 0 && Double.isFinite(aspect))) {
                throw new IllegalArgumentException("area " + area + ", aspect " + aspect
                        + " (expected: an area in (0, 1] and a positive aspect)");
            }
        }

        /** A framing placed across and down (not a spatial crop). */
        public Framing(double cropX, double cropY, int shortSide, boolean mirrored, double area, double aspect) {
            this(cropX, cropY, shortSide, mirrored, area, aspect, false);
        }

        /** A framing that cuts by short side and crop position only (no random resized crop). */
        public Framing(double cropX, double cropY, int shortSide, boolean mirrored) {
            this(cropX, cropY, shortSide, mirrored, 1, 1);
        }
    }

    /**
     * This clip's framing, drawn from {@link #seed()}: the crop position first (random crops only, so that a seed
     * crops as it did before jitter and flips existed), then the short side (with jitter), then the mirror (with
     * flip). Without any of them, the centred, unjittered, unmirrored framing. A spatial crop's position is not drawn:
     * crop {@code i} of {@code n} lies at {@code i / (n - 1)} of the long side's slack.
     */
    public Framing framing() {
        boolean resized = mode == Mode.RANDOM_RESIZED_CROP;
        boolean randomCrop = mode == Mode.SHORT_SIDE_RANDOM_CROP || resized;
        boolean jitter = shortSideMax > shortSide;
        boolean spread = spatialCrops > 1;
        if (!randomCrop && !jitter && !flip && !spread) {
            return new Framing(0.5, 0.5, shortSide, false);
        }
        SplittableRandom random = new SplittableRandom(seed);
        // A spatial crop (a centre crop: nothing drawn for its place) is placed along the long side.
        double cropX = randomCrop ? random.nextDouble() : spread ? (double) spatialCrop / (spatialCrops - 1) : 0.5;
        double cropY = randomCrop ? random.nextDouble() : 0.5;
        int side = jitter ? shortSide + random.nextInt(shortSideMax - shortSide + 1) : shortSide;
        double area = 1;
        double aspect = 1;
        if (resized) {
            // Area uniform, aspect log-uniform, as torchvision draws them (the area's upper end, 1, is open there too).
            area = areaMin < 1 ? areaMin + (1 - areaMin) * random.nextDouble() : 1;
            aspect = Math.exp(Math.log(ASPECT_MIN) + (Math.log(ASPECT_MAX) - Math.log(ASPECT_MIN)) * random.nextDouble());
        }
        return new Framing(cropX, cropY, side, flip && random.nextBoolean(), area, aspect, spread);
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
     * the part the short-side resize (to {@code framing}'s short side) and the crop at {@code framing}'s position
     * keep; for a random resized crop, {@code framing}'s share of the picture at its aspect and position; else the
     * whole picture. Its corner moves by whole chroma samples ({@code 1 << chromaShiftX} pixels
     * across, {@code 1 << chromaShiftY} down), as plane pointers can. The single definition of which pixels a
     * clip shows, shared by the CPU converter and the GPU's kernel (a mirror is drawn from the same window).
     */
    public Window sourceWindow(int rotation, int codedWidth, int codedHeight, Framing framing, int outWidth,
                               int outHeight, int chromaShiftX, int chromaShiftY) {
        boolean quarterTurn = rotation == 90 || rotation == 270;
        int displayWidth = quarterTurn ? codedHeight : codedWidth;
        int displayHeight = quarterTurn ? codedWidth : codedHeight;
        int x = 0;
        int y = 0;
        int w = displayWidth;
        int h = displayHeight;
        if (mode.crops()) {
            double scale = Math.max((double) framing.shortSide() / Math.min(displayWidth, displayHeight),
                    Math.max((double) outWidth / displayWidth, (double) outHeight / displayHeight));
            w = Math.clamp(Math.round(outWidth / scale), 1, displayWidth);
            h = Math.clamp(Math.round(outHeight / scale), 1, displayHeight);
        } else if (mode == Mode.RANDOM_RESIZED_CROP) {
            // The drawn share of the picture at the drawn aspect; a cut wider or taller than the picture shrinks, aspect
            // kept, until it fits (torchvision draws again instead, ten times, then takes a centre crop).
            double cutWidth = Math.sqrt(framing.area() * displayWidth * displayHeight * framing.aspect());
            double cutHeight = Math.sqrt(framing.area() * displayWidth * displayHeight / framing.aspect());
            double fit = Math.min(1, Math.min(displayWidth / cutWidth, displayHeight / cutHeight));
            w = Math.clamp(Math.round(cutWidth * fit), 1, displayWidth);
            h = Math.clamp(Math.round(cutHeight * fit), 1, displayHeight);
        }
        boolean portraitSpread = framing.alongLongSide() && displayHeight > displayWidth;
        x = (int) Math.round((displayWidth - w) * (portraitSpread ? framing.cropY() : framing.cropX()));
        y = (int) Math.round((displayHeight - h) * (portraitSpread ? framing.cropX() : framing.cropY()));
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

    /**
     * Copies {@code rows} rows of {@code width} RGB24 pixels from {@code from} (row r at {@code fromOffset + r *
     * fromRowBytes}) to {@code to} (rows packed from {@code toOffset}), each mirrored left to right: what a
     * {@link Framing#mirrored()} clip is, made from its unmirrored pixels ({@code from} may be {@code to}, rows packed,
     * to mirror in place). Each row passes through {@code row}, a scratch of at least {@code width * 3 + 1} bytes, and is
     * written a pixel at a time as one 4-byte store (its fourth byte overwritten by the next pixel's), which is about
     * three times faster than swapping bytes.
     */
    public static void mirrorRows(MemorySegment from, long fromOffset, long fromRowBytes, MemorySegment to, long toOffset,
                                  int width, int rows, byte[] row) {
        if (width < 1) {
            throw new IllegalArgumentException("width: " + width + " (expected: 1+)");
        }
        int rowBytes = width * 3;
        if (row.length < rowBytes + 1) {
            throw new IllegalArgumentException("row: " + row.length + " bytes (expected: " + (rowBytes + 1) + "+)");
        }
        int last = rowBytes - 3;
        for (int r = 0; r < rows; r++) {
            MemorySegment.copy(from, ValueLayout.JAVA_BYTE, fromOffset + r * fromRowBytes, row, 0, rowBytes);
            long at = toOffset + (long) r * rowBytes;
            for (int x = 0; x < last; x += 3) {
                to.set(PIXEL_STORE, at + x, (int) PIXEL_LOAD.get(row, last - x));
            }
            MemorySegment.copy(row, 0, to, ValueLayout.JAVA_BYTE, at + last, 3);
        }
    }
}
