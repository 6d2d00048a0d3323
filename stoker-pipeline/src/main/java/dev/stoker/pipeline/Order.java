package dev.stoker.pipeline;

/** The order in which a stage emits its results. */
public enum Order {
    /** As tasks finish: the fastest; the default. */
    COMPLETION,
    /** In the order items entered the stage, whatever order their tasks finish in. */
    INPUT
}
