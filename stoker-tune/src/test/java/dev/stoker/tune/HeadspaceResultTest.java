package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The summary line reads as the issue words it, and the JSON carries every figure under snake_case names. */
class HeadspaceResultTest {

    private static HeadspaceResult result(double floor, double achieved, double stepWithLoader, double waitShare) {
        return new HeadspaceResult(floor, floor, achieved, achieved, stepWithLoader, achieved * waitShare, waitShare,
                achieved / floor, 8 * 1000 / achieved, 8 * 1000 / floor, 50, 5, 8, "bottleneck: decode (saturated)");
    }

    @Test
    void theSummarySaysHowMuchFasterTrainingCouldGet() {
        String summary = result(40.1, 95.0, 40.3, 0.58).summary();

        assertThat(summary).startsWith("training step 40.1 ms on cached data, 95.0 ms with the loader: "
                + "58% of the time waiting for data; a loader fast enough would make training 2.37x faster "
                + "(84.2 samples/s now, 200 at the ceiling).");
        assertThat(summary).contains("Loader bottleneck: decode (saturated).").doesNotContain("slower while the loader ran");
    }

    @Test
    void theSummaryNamesAStepSlowedByTheLoaderSharingTheCpu() {
        String summary = result(40.0, 60.0, 58.0, 0.03).summary();

        assertThat(summary).contains("3% of the time waiting for data; the loader keeps up, but training runs 1.50x"
                        + " slower than on cached data: loading that took less of the CPU and memory bandwidth (or ran"
                        + " elsewhere) would make it up to 1.50x faster")
                .doesNotContain("a loader fast enough")
                .contains("The step itself ran 1.45x slower while the loader ran (58.0 ms vs 40.0 ms)");
        assertThat(result(40.0, 60.0, 58.0, 0.20).summary()).as("waiting for data too: faster loading helps")
                .contains("a loader fast enough would make training 1.50x faster");
    }

    @Test
    void theSummarySaysWhenTheLoaderKeepsUp() {
        assertThat(result(40.0, 40.4, 40.2, 0.005).summary()).contains("the loader keeps up (1.01x)")
                .doesNotContain("too few steps");
        // Waiting 1% of the time: the gap is the step's own slowdown, however small, not a loader to make faster.
        assertThat(result(95.0, 103.5, 102.3, 0.01).summary()).contains("the loader keeps up, but training runs 1.09x"
                + " slower than on cached data").doesNotContain("a loader fast enough");
        assertThat(result(40.0, 30.4, 30.2, 0.005).summary()).as("a floor slower than the steps with the loader")
                .contains("the loader keeps up (0.76x)", "too few steps to measure the floor well");
    }

    @Test
    void theJsonCarriesEveryFigure() throws Exception {
        JsonNode json = new ObjectMapper().readTree(result(40.1, 95.0, 40.3, 0.58).toJson());

        assertThat(json.get("floor_step_ms").asDouble()).isEqualTo(40.1);
        assertThat(json.get("achieved_step_ms").asDouble()).isEqualTo(95.0);
        assertThat(json.get("waiting_share").asDouble()).isEqualTo(0.58);
        assertThat(json.get("headspace").asDouble()).isEqualTo(95.0 / 40.1);
        assertThat(json.get("samples_per_second").asDouble()).isPositive();
        assertThat(json.get("ceiling_samples_per_second").asDouble()).isPositive();
        assertThat(json.get("steps_measured").asInt()).isEqualTo(50);
        assertThat(json.fieldNames()).toIterable().contains("floor_step_median_ms", "achieved_step_median_ms",
                "step_with_loader_ms", "wait_ms_per_step", "warmup_steps", "cached_batches", "loader_verdict");
    }
}
