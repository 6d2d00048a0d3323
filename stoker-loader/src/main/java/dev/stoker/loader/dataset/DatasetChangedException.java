package dev.stoker.loader.dataset;

import dev.stoker.loader.dataset.internal.DatasetFingerprint;

/**
 * A sampler state cannot resume this dataset: the dataset's fingerprint is not the one the state was taken on
 * (files were added, removed or changed size), so the order it would give is not the one the state was taken in.
 * A loader that can leave files out until the fingerprint matches (the video loader
 * with its quarantine) asks for this type, not for the message's words.
 */
public final class DatasetChangedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final transient DatasetFingerprint actual;

    public DatasetChangedException(DatasetFingerprint actual, DatasetFingerprint expected) {
        super("dataset fingerprint: " + actual + " (expected: " + expected
                + ", the dataset the sampler state was taken on; it changed since, so the state cannot resume it)");
        this.actual = actual;
    }

    /** The fingerprint of the dataset given (the state's is {@code SamplerState.dataset()}, and in the message). */
    public DatasetFingerprint actual() { return actual; }
}
