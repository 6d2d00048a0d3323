package dev.stoker.tune;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A batch as a training framework takes it: one {@code uint8} tensor in row-major order and a label
 * per sample. What {@code stoker headspace} hands to a {@link TrainingStep}; free of video types so that a
 * step can be written against this module alone.
 *
 * @param data   the tensor's bytes; valid only while the step runs (the loader may reuse the buffer after)
 * @param shape  the tensor's shape, samples first, e.g. {@code [N, T, H, W, C]}
 * @param labels one label per sample
 */
public record TensorBatch(MemorySegment data, long[] shape, int[] labels) {

    public TensorBatch {
        Objects.requireNonNull(data, "data");
        if (shape.length == 0) {
            throw new IllegalArgumentException("shape: [] (expected: samples first, e.g. [N, T, H, W, C])");
        }
        shape = shape.clone();
        labels = labels.clone();
    }

    /** Samples in the batch: the first dimension. */
    public int samples() {
        return (int) shape[0];
    }

    @Override
    public long[] shape() { return shape.clone(); }

    @Override
    public int[] labels() { return labels.clone(); }

    /** A copy whose bytes live in {@code arena} (64-byte aligned), valid until the arena is closed. */
    public TensorBatch copyInto(Arena arena) {
        MemorySegment copy = arena.allocate(Math.max(1, data.byteSize()), 64).asSlice(0, data.byteSize());
        copy.copyFrom(data);
        return new TensorBatch(copy, shape, labels);
    }

    @Override
    public String toString() {
        return "TensorBatch" + Arrays.toString(shape) + " (" + data.byteSize() + " bytes)";
    }
}
