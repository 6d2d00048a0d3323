package dev.stoker.djl.internal;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.tune.TensorBatch;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.UUID;

/**
 * Stoker batches as DJL arrays.
 *
 * <p>On the CPU the pixel array is the batch's own off-heap memory: DJL's PyTorch engine wraps a direct
 * {@link ByteBuffer} with {@code torch::from_blob}, and {@link MemorySegment#asByteBuffer()} of the batch
 * segment is one, so nothing is copied. On a GPU libtorch copies it to the device once. The first
 * arithmetic ({@link #normalized}) writes a new float tensor, after which the uint8 view may go.
 *
 * <p>Lifetime: a batch's arrays live in a sub-manager that {@link BatchArrays#close()} closes; with
 * {@link #of(ClipBatch, NDManager)} the batch is attached to that manager, so the pooled buffer goes back
 * to the loader exactly when its arrays are freed, never while one still points at it.
 */
public final class ClipArrays {
    /** Kinetics-400 RGB mean and standard deviation (torchvision's video models), in [0, 1] units. */
    private static final float[] MEAN = {0.43216f, 0.394666f, 0.37645f};
    private static final float[] STD = {0.22803f, 0.22145f, 0.216989f};

    private ClipArrays() {
    }

    /** The batch's arrays; the batch now belongs to them (closing the arrays closes the batch). */
    public static BatchArrays of(ClipBatch batch, NDManager parent) {
        NDManager manager = parent.newSubManager();
        try {
            BatchArrays arrays = build(batch.data(), batch.shape(), batch.labels(), batch.layout(), manager);
            manager.attachInternal("clip-batch-" + UUID.randomUUID(), batch);
            return arrays;
        } catch (RuntimeException | Error e) {
            manager.close();
            throw e;
        }
    }

    /**
     * Arrays over a batch someone else owns (a {@link TensorBatch} lent to a training step): they must be
     * closed before its memory is released.
     */
    public static BatchArrays view(TensorBatch batch, BatchLayout layout, NDManager parent) {
        NDManager manager = parent.newSubManager();
        try {
            return build(batch.data(), batch.shape(), batch.labels(), layout, manager);
        } catch (RuntimeException | Error e) {
            manager.close();
            throw e;
        }
    }

    /** {@code data} as a {@code uint8} array of {@code shape} in {@code manager}: zero-copy on the CPU. */
    public static NDArray pixels(MemorySegment data, long[] shape, NDManager manager) {
        long elements = Arrays.stream(shape).reduce(1, Math::multiplyExact);
        if (elements != data.byteSize()) {
            throw new IllegalArgumentException("shape: " + Arrays.toString(shape) + " holds " + elements
                    + " bytes but the segment has " + data.byteSize() + " (expected: equal)");
        }
        if (!data.isNative()) {
            throw new IllegalArgumentException("data: a heap segment (expected: off-heap memory, which the engine can wrap)");
        }
        return manager.create(data.asByteBuffer(), new Shape(shape), DataType.UINT8);
    }

    /** Labels as {@code int64}, a few bytes copied. */
    public static NDArray labels(int[] labels, NDManager manager) {
        return manager.create(Arrays.stream(labels).asLongStream().toArray());
    }

    /**
     * {@code (pixels / 255 - mean) / std} in float32, as {@code [N, C, T, H, W]} whatever the input layout:
     * one pass that allocates the float tensor (in the pixels' manager), then in-place arithmetic.
     */
    public static NDArray normalized(NDArray pixels, BatchLayout layout) {
        NDManager manager = pixels.getManager();
        boolean channelsLast = layout == BatchLayout.NTHWC;
        Shape statShape = channelsLast ? new Shape(3) : new Shape(3, 1, 1, 1);
        // x * (1 / (255 std)) - mean / std: a multiply and a subtract in place, no division per element.
        float[] scale = new float[3];
        float[] shift = new float[3];
        for (int c = 0; c < 3; c++) {
            scale[c] = 1f / (STD[c] * 255f);
            shift[c] = MEAN[c] / STD[c];
        }
        long channels = pixels.getShape().get(channelsLast ? 4 : 1);
        if (channels != 3) {
            throw new IllegalArgumentException("pixels: " + pixels.getShape() + " in " + layout + " has " + channels
                    + " channels (expected: 3, RGB)");
        }
        try (NDArray mul = manager.create(scale, statShape); NDArray sub = manager.create(shift, statShape)) {
            NDArray x = pixels.toType(DataType.FLOAT32, true).muli(mul).subi(sub);
            if (!channelsLast) {
                return x;
            }
            NDArray moved = x.transpose(0, 4, 1, 2, 3);
            x.close();
            return moved;
        }
    }

    private static BatchArrays build(MemorySegment data, long[] shape, int[] labels, BatchLayout layout, NDManager manager) {
        if (shape.length != 5) {
            throw new IllegalArgumentException("shape: " + Arrays.toString(shape) + " (expected: 5 dimensions, " + layout + ")");
        }
        if (labels.length != shape[0]) {
            throw new IllegalArgumentException("labels: " + labels.length + " for " + shape[0] + " clips (expected: one per clip)");
        }
        NDArray pixels = pixels(data, shape, manager);
        NDArray labelArray = labels(labels, manager);
        return new BatchArrays(manager, pixels, labelArray, layout);
    }
}
