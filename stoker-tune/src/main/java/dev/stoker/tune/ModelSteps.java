package dev.stoker.tune;

import java.util.List;

/**
 * Builds {@link ModelStep}s: the service a framework adapter provides ({@code java.util.ServiceLoader}; the
 * {@code stoker-djl} module provides {@code r3d}), so that a command can load the adapter only when a model
 * is asked for and keep the framework off its class path otherwise.
 */
public interface ModelSteps {

    /** The model names {@link #open} accepts. */
    List<String> models();

    /** A new model with fresh weights; the caller closes it. */
    ModelStep open(ModelSpec spec);
}
