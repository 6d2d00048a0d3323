package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.Map;

/**
 * One trial as the tuner recorded it: one line of {@code experiments.jsonl}.
 *
 * @param trial       trial number, from 0
 * @param parent      the trial whose config this one changed (-1 for the first)
 * @param phase       why it ran: the start config, a repeat of it, a hypothesis, a sweep step, ...
 * @param change      the change from the parent, e.g. {@code decode.concurrency 3→4}
 * @param hypothesis  why, in words
 * @param point       the value of every knob
 * @param status      how its run ended
 * @param message     why it failed (null when ok)
 * @param metrics     what it measured (null unless ok)
 * @param kept        whether it became the new best (improved on it by more than the noise)
 * @param bestSoFar   the best throughput after this trial
 * @param threshold   the gain it needed to be kept (samples/s over the best config's score)
 * @param startedSeconds  seconds since the search started (across resumes: since its first start)
 * @param durationSeconds how long the trial took
 * @param options     the options document it ran
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Experiment(
        int trial,
        int parent,
        TrialPhase phase,
        String change,
        String hypothesis,
        Map<String, Integer> point,
        TrialStatus status,
        String message,
        TrialMetrics metrics,
        boolean kept,
        double bestSoFar,
        double threshold,
        @JsonProperty("started_s") double startedSeconds,
        @JsonProperty("duration_s") double durationSeconds,
        JsonNode options) {

    public boolean ok() {
        return status == TrialStatus.OK;
    }

    /** Throughput, 0 when the trial failed. */
    public double samplesPerSecond() {
        return ok() && metrics != null ? metrics.samplesPerSecond() : 0;
    }
}
