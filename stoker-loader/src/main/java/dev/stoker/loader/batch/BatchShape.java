package dev.stoker.loader.batch;

import java.util.Objects;

/**
 * Geometry of one batch: {@code clipsPerBatch} clips of {@code frames} frames of
 * {@code height}×{@code width}×{@code channels} uint8 values, in {@code layout} order.
 */
public record BatchShape(int clipsPerBatch, int frames, int height, int width, int channels, BatchLayout layout) {

    public BatchShape {
        requirePositive("clipsPerBatch", clipsPerBatch);
        requirePositive("frames", frames);
        requirePositive("height", height);
        requirePositive("width", width);
        requirePositive("channels", channels);
        Objects.requireNonNull(layout, "layout");
        if ((long) clipsPerBatch * frames * height * width * channels > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("batch of " + clipsPerBatch + "x" + frames + "x" + height + "x"
                    + width + "x" + channels + " bytes is too large");
        }
    }

    /** RGB24 clips in the default {@link BatchLayout#NTHWC} layout. */
    public static BatchShape rgb(int clipsPerBatch, int frames, int height, int width) {
        return new BatchShape(clipsPerBatch, frames, height, width, 3, BatchLayout.NTHWC);
    }

    public BatchShape withLayout(BatchLayout newLayout) {
        return new BatchShape(clipsPerBatch, frames, height, width, channels, newLayout);
    }

    /** Bytes of one clip: T·H·W·C. */
    public long clipBytes() {
        return (long) frames * height * width * channels;
    }

    /** Bytes of one whole batch buffer. */
    public long batchBytes() {
        return clipBytes() * clipsPerBatch;
    }

    /** Tensor shape for a batch holding {@code clips} clips. */
    public long[] shape(int clips) {
        return layout.shape(clips, frames, height, width, channels);
    }

    private static void requirePositive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: 1+)");
        }
    }
}
