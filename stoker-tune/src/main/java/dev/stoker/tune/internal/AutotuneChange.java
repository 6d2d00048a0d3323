package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.stoker.pipeline.Reconfiguration.Knob;
import java.util.Locale;

/**
 * One change the online autotuner made.
 *
 * @param atMillis  time since the autotuner started
 * @param stage     stage name, or {@code sink}
 * @param knob      what changed
 * @param from      value before
 * @param to        value after
 * @param reason    why, in words
 * @param outcome   what the change was
 * @param before    throughput before (items/s at the sink, the baseline)
 * @param after     throughput measured after (0 while probing)
 */
public record AutotuneChange(long atMillis, String stage, Knob knob, int from, int to, String reason, Outcome outcome,
                             double before, double after) {
    @Override
    public String toString() {
        String rates = outcome == Outcome.KEPT || outcome == Outcome.REVERTED && after > 0
                ? String.format(Locale.ROOT, "%.1f→%.1f/s", before, after)
                : String.format(Locale.ROOT, "at %.1f/s", before);
        return String.format(Locale.ROOT, "%6.1fs %-8s %s.%s %d→%d (%s; %s)", atMillis / 1000.0, outcome,
                stage, knob, from, to, reason, rates);
    }

    /** What a change was; prints (and reads in JSON) in lower case. */
    public enum Outcome {
        /** Being measured. */
        PROBE,
        /** A probe that paid. */
        KEPT,
        /** The way back from a probe that did not pay. */
        REVERTED,
        /** A correction to stay within the CPU or RAM budget. */
        BUDGET;

        @JsonValue
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
