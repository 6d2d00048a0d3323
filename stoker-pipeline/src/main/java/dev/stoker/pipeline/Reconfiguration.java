package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One change made to a running pipeline by {@link Pipeline#reconfigure}: kept in its stats
 * ({@link PipelineStats#reconfigurations()}) and drawn in its trace, so that a run's numbers can be read
 * against the settings they were measured with.
 *
 * @param atMillis time since the pipeline started
 * @param stage    stage name, or {@code sink}
 * @param knob     {@code concurrency} or {@code queueCapacity}
 * @param from     value before
 * @param to       value after
 * @param reason   why, as the caller put it (empty when it gave none)
 */
public record Reconfiguration(@JsonProperty("at_ms") long atMillis, @JsonProperty("stage") String stage,
                              @JsonProperty("knob") String knob, @JsonProperty("from") int from,
                              @JsonProperty("to") int to, @JsonProperty("reason") String reason) {
    public Reconfiguration {
        reason = reason == null ? "" : reason;
    }

    /** {@code decode.concurrency 1→2}. */
    public String change() {
        return stage + "." + knob + " " + from + "→" + to;
    }
}
