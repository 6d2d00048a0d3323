package dev.stoker.cli;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.HeadspaceResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code stoker train} measured ({@code --json}, the report): the model, the steps' times and losses,
 * and the headspace verdict of the same model on cached batches.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record TrainResult(
        String dataset,
        String model,
        int batchSize,
        Steps steps,
        HeadspaceResult headspace,
        long failures,
        Map<String, Long> failuresByReason,
        PipelineConfig config) {

    /**
     * The training steps. Times and rates leave out the first {@code warmupSteps} (start-up: the model's
     * allocation, the loader's first batch).
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Steps(
            int steps,
            int warmupSteps,
            @JsonProperty("step_ms_p50") double stepMillisP50,
            @JsonProperty("step_ms_p99") double stepMillisP99,
            double samplesPerSecond,
            double dataWaitShare,
            double lossFirst,
            double lossLast,
            @JsonProperty("loss") List<Double> losses,
            @JsonProperty("wait_ms") List<Double> waitMillis,
            @JsonProperty("train_ms") List<Double> trainMillis) {
    }

    /** The final summary, a few lines. */
    String summary() {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%d steps (%d warm-up): step p50 %.1f ms, p99 %.1f ms; %.1f samples/s;"
                        + " waiting for data %.0f%% of the time%n",
                steps.steps(), steps.warmupSteps(), steps.stepMillisP50(), steps.stepMillisP99(), steps.samplesPerSecond(),
                steps.dataWaitShare() * 100));
        s.append(String.format(Locale.ROOT, "loss %.4f at step 1, %.4f at step %d%n", steps.lossFirst(), steps.lossLast(),
                steps.steps()));
        if (headspace != null) {
            s.append("headspace: ").append(headspace.summary()).append('\n');
        }
        if (failures > 0) {
            s.append(String.format(Locale.ROOT, "failures: %d skipped %s%n", failures, failuresByReason));
        }
        return s.toString();
    }
}
