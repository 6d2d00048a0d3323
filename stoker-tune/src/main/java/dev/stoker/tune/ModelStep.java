package dev.stoker.tune;

/**
 * A model's training step (forward, backward, optimiser update) that reports how it learns: the loss of
 * its last step. {@code stoker train} and {@code stoker headspace --model} time it; closing frees the model
 * (native memory of a framework). Built by a {@link ModelSteps} provider.
 */
public interface ModelStep extends TrainingStep<TensorBatch>, AutoCloseable {

    /** The loss of the last step ({@code NaN} before the first). */
    double lastLoss();

    /** One line: the model, its size and where it runs, e.g. {@code r3d width 0.125 (0.52 M parameters) on cpu()}. */
    String description();

    @Override
    void close();
}
