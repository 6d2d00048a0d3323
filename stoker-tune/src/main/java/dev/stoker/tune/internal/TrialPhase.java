package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Why the tuner ran a trial: the {@code phase} of a line of {@code experiments.jsonl}. */
public enum TrialPhase {
    /** The start config, as given. */
    START,
    /** The start config again: the spread of its runs is the noise. */
    REPEAT,
    /** A change read from the stats. */
    HYPOTHESIS,
    /** A coordinate sweep's step. */
    SWEEP,
    /** A hypothesis run once and not kept, run again because the stats still point to it. */
    SECOND_LOOK,
    /** The best config again: its score now, and the noise. */
    REFERENCE,
    /** A candidate again, side by side with a reference run. */
    CONFIRM;

    /** Whether the trial tries a new config (or one again), rather than measuring a known one. */
    public boolean isCandidate() {
        return this == HYPOTHESIS || this == SWEEP || this == SECOND_LOOK;
    }

    /** Whether the trial measured the start config: the runs whose spread is the noise. */
    public boolean measuresStart() {
        return this == START || this == REPEAT;
    }

    /** {@code second-look}: the name in lower case, words joined by a hyphen, as the journal writes (and reads) it. */
    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
