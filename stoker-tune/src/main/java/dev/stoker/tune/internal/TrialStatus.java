package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a trial's run ended: the {@code status} of a line of {@code experiments.jsonl}. */
public enum TrialStatus {
    /** It delivered batches and was measured. */
    OK,
    /** It threw, or delivered nothing (after one retry). */
    FAILED,
    /** It ran past the trial's time limit. */
    TIMEOUT;

    /** {@code ok}, as the journal writes (and reads) it. */
    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
