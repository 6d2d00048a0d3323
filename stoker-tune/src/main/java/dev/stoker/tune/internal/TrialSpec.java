package dev.stoker.tune.internal;

import dev.stoker.loader.LoaderOptions;
import java.util.Objects;

/**
 * What one trial runs.
 *
 * @param trial         trial number (0 for the first)
 * @param options       the options document to run: the start options with every knob's value at its path
 * @param timeoutMillis the trial is stopped and counted as failed after this long
 */
public record TrialSpec(int trial, LoaderOptions options, long timeoutMillis) {
    public TrialSpec {
        Objects.requireNonNull(options, "options");
    }
}
