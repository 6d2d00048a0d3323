package dev.stoker.tune;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * What {@link Headspace} measured: how fast training steps run on data that is already there (the
 * compute floor), how fast they run with the real loader, and so how much faster training could get
 * from faster loading. Serialised with snake_case names ({@link #toJson()}).
 *
 * @param floorStepMillis         mean step time on cached batches: the compute floor
 * @param floorStepMedianMillis   median step time on cached batches
 * @param achievedStepMillis      mean time per step with the loader, waiting for the batch included
 * @param achievedStepMedianMillis median time per step with the loader, waiting included
 * @param stepWithLoaderMillis    mean time inside the step with the loader running (above the floor
 *                                when loading takes CPU or memory bandwidth from the step)
 * @param waitMillisPerStep       mean time per step spent waiting for the loader's next batch
 * @param waitingShare            share of the achieved step time spent waiting for data, 0..1
 * @param headspace               achieved / floor: how many times faster training would run with a loader
 *                                that is never waited for and takes nothing from the step
 * @param samplesPerSecond        samples trained per second with the loader
 * @param ceilingSamplesPerSecond samples trained per second on cached batches: the ceiling
 * @param stepsMeasured           measured steps in each phase
 * @param warmupSteps             steps run before measuring, in each phase
 * @param cachedBatches           batches copied and replayed in the cached phase
 * @param loaderVerdict           the loader pipeline's bottleneck line over the loader phase's measured steps
 *                                (not the cache filling before them), or null when the batches did not come from a
 *                                {@code Pipeline}
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record HeadspaceResult(
        @JsonProperty("floor_step_ms") double floorStepMillis,
        @JsonProperty("floor_step_median_ms") double floorStepMedianMillis,
        @JsonProperty("achieved_step_ms") double achievedStepMillis,
        @JsonProperty("achieved_step_median_ms") double achievedStepMedianMillis,
        @JsonProperty("step_with_loader_ms") double stepWithLoaderMillis,
        @JsonProperty("wait_ms_per_step") double waitMillisPerStep,
        double waitingShare,
        double headspace,
        double samplesPerSecond,
        double ceilingSamplesPerSecond,
        int stepsMeasured,
        int warmupSteps,
        int cachedBatches,
        String loaderVerdict) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** Below this share of waiting, a step slower beside the loader is the cause of the headspace, not the wait. */
    private static final double SHARING_WAIT_SHARE = 0.05;

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One paragraph, e.g. "training step 40.1 ms on cached data, 95.0 ms with the loader: 58% of the
     * time waiting for data; a loader fast enough would make training 2.37x faster (..samples/s now, ..
     * at the ceiling)."
     */
    public String summary() {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "training step %.1f ms on cached data, %.1f ms with the loader: %.0f%% of the time waiting for data; ",
                floorStepMillis, achievedStepMillis, waitingShare * 100));
        boolean stepSlowed = stepWithLoaderMillis > floorStepMillis * 1.15 && stepWithLoaderMillis - floorStepMillis > 0.5;
        if (headspace >= 1.05 && waitingShare < SHARING_WAIT_SHARE) {
            // Nothing waits for data: what training loses is the step's own time, taken by loading beside it.
            s.append(String.format(Locale.ROOT, "the loader keeps up, but training runs %.2fx slower than on cached"
                    + " data: loading that took less of the CPU and memory bandwidth (or ran elsewhere) would make it"
                    + " up to %.2fx faster", headspace, headspace));
        } else if (headspace >= 1.05) {
            s.append(String.format(Locale.ROOT, "a loader fast enough would make training %.2fx faster", headspace));
        } else {
            s.append(String.format(Locale.ROOT,
                    "the loader keeps up (%.2fx): faster loading would not make training faster", headspace));
            if (headspace < 0.95) {
                // Below 1 only by noise: the floor's few steps ran slower than the same steps beside the loader.
                s.append(" (the steps on cached data ran slower than those with the loader: too few steps to measure"
                        + " the floor well; measure more of them)");
            }
        }
        s.append(String.format(Locale.ROOT, " (%s samples/s now, %s at the ceiling).",
                rate(samplesPerSecond), rate(ceilingSamplesPerSecond)));
        if (stepSlowed) {
            s.append(String.format(Locale.ROOT,
                    " The step itself ran %.2fx slower while the loader ran (%.1f ms vs %.1f ms): they share CPU or memory bandwidth.",
                    stepWithLoaderMillis / floorStepMillis, stepWithLoaderMillis, floorStepMillis));
        }
        if (loaderVerdict != null && !loaderVerdict.isBlank()) {
            s.append(" Loader ").append(loaderVerdict).append('.');
        }
        return s.toString();
    }

    private static String rate(double perSecond) {
        return perSecond >= 100 ? String.format(Locale.ROOT, "%.0f", perSecond) : String.format(Locale.ROOT, "%.1f", perSecond);
    }
}
