package dev.stoker.djl.internal;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.dataset.Batch;
import ai.djl.translate.Batchifier;
import dev.stoker.loader.batch.BatchLayout;

/**
 * One batch as DJL arrays, in an {@link NDManager} of its own: the pixels ({@code uint8}, the batch's own
 * memory on the CPU), the labels ({@code int64}), and on demand the model's input (float, normalised,
 * {@code [N, C, T, H, W]}). Closing it closes the manager: every array made from the batch, and the
 * batch itself when it was handed over ({@link ClipArrays#of}), whose buffer then goes back to its pool.
 */
public final class BatchArrays implements AutoCloseable {
    private final NDManager manager;
    private final NDArray pixels;
    private final NDArray labels;
    private final BatchLayout layout;
    private NDArray input;

    BatchArrays(NDManager manager, NDArray pixels, NDArray labels, BatchLayout layout) {
        this.manager = manager;
        this.pixels = pixels;
        this.labels = labels;
        this.layout = layout;
    }

    /** The batch's manager: arrays made in it are freed with the batch. */
    public NDManager manager() { return manager; }

    /** The pixels as the loader wrote them: {@code uint8}, {@link #layout()}, the batch's shape. */
    public NDArray pixels() { return pixels; }

    /** One label per clip, {@code int64} (what DJL's sparse softmax cross-entropy picks by). */
    public NDArray labels() { return labels; }

    public BatchLayout layout() { return layout; }

    /** Clips in the batch. */
    public int size() {
        return Math.toIntExact(pixels.getShape().get(0));
    }

    /**
     * The model's input, computed once on the batch's device: float32, scaled and normalised with the
     * Kinetics mean and deviation torchvision's video models use, {@code [N, C, T, H, W]}.
     */
    public NDArray input() {
        if (input == null) {
            input = ClipArrays.normalized(pixels, layout);
        }
        return input;
    }

    /**
     * A DJL {@link Batch} of {@code input()} and {@code labels()} that owns this batch: closing it (as
     * {@code EasyTrain} does after each step) closes this.
     */
    public Batch toBatch(long progress, long progressTotal) {
        return new Batch(manager, new NDList(input()), new NDList(labels), size(), Batchifier.STACK, Batchifier.STACK,
                progress, progressTotal);
    }

    @Override
    public void close() {
        manager.close();
    }

    @Override
    public String toString() {
        return "BatchArrays" + pixels.getShape() + " " + layout + " on " + manager.getDevice()
                + (labels.getDataType() == DataType.INT64 ? "" : " labels " + labels.getDataType());
    }
}
