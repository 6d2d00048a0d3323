package dev.stoker.tune;

/**
 * One training step of the consumer: forward, backward and optimiser update on one batch, or whatever
 * the consumer does with a batch before it asks for the next. {@link Headspace} times it.
 *
 * <p>The step must be done with the batch when it returns: the batch may be released (a pooled
 * off-heap buffer returned) right after. A class named by {@code stoker headspace --step-class}
 * implements {@code TrainingStep<TensorBatch>} and has a public no-arg constructor.
 *
 * @param <B> what the step receives
 */
@FunctionalInterface
public interface TrainingStep<B> {
    void accept(B batch) throws Exception;
}
