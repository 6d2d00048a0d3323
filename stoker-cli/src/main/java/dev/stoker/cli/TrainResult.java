package dev.stoker.cli;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.HeadspaceResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code stoker train} measured ({@code --json}, the report): the model, the steps' times and losses,
 * and the headspace verdict of the same model on cached batches.
 */
record TrainResult(
        @JsonProperty("dataset") String dataset,
        @JsonProperty("model") String model,
        @JsonProperty("batch_size") int batchSize,
        @JsonProperty("steps") Steps steps,
        @JsonProperty("headspace") HeadspaceResult headspace,
        @JsonProperty("failures") long failures,
        @JsonProperty("failures_by_reason") Map<String, Long> failuresByReason,
        @JsonProperty("config") PipelineConfig config) {

    /**
     * The training steps. Times and rates leave out the first {@code warmupSteps} (start-up: the model's
     * allocation, the loader's first batch).
     */
    record Steps(
            @JsonProperty("steps") int steps,
            @JsonProperty("warmup_steps") int warmupSteps,
            @JsonProperty("step_ms_p50") double stepMillisP50,
            @JsonProperty("step_ms_p99") double stepMillisP99,
            @JsonProperty("samples_per_second") double samplesPerSecond,
            @JsonProperty("data_wait_share") double dataWaitShare,
            @JsonProperty("loss_first") double lossFirst,
            @JsonProperty("loss_last") double lossLast,
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
