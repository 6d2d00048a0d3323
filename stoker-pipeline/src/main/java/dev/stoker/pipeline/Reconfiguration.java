package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/**
 * One change made to a running pipeline by {@link Pipeline#reconfigure}: kept in its stats
 * ({@link PipelineStats#reconfigurations()}) and drawn in its trace, so that a run's numbers can be read
 * against the settings they were measured with.
 *
 * @param atMillis time since the pipeline started
 * @param stage    stage name, or {@code sink}
 * @param knob     what changed
 * @param from     value before
 * @param to       value after
 * @param reason   why, as the caller put it (empty when it gave none)
 */
public record Reconfiguration(@JsonProperty("at_ms") long atMillis, @JsonProperty("stage") String stage,
                              @JsonProperty("knob") Knob knob, @JsonProperty("from") int from,
                              @JsonProperty("to") int to, @JsonProperty("reason") String reason) {
    public Reconfiguration {
        reason = reason == null ? "" : reason;
    }

    /** {@code decode.concurrency 1→2}. */
    public String change() {
        return stage + "." + knob + " " + from + "→" + to;
    }

    /** The knobs a running pipeline can change; each prints (and reads in JSON) as its config field is named. */
    public enum Knob {
        /** A stage's workers. */
        CONCURRENCY("concurrency"),
        /** A stage's input queue, or the sink's buffer. */
        QUEUE_CAPACITY("queueCapacity");

        private final String field;

        Knob(String field) {
            this.field = field;
        }

        @JsonValue
        @Override
        public String toString() { return field; }

        @JsonCreator
        public static Knob of(String field) {
            return Arrays.stream(values()).filter(k -> k.field.equals(field)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("knob: " + field + " (expected: one of " + Arrays.toString(values()) + ")"));
        }
    }
}
