package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.pipeline.Pipeline;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Headspace on synthetic pipelines whose stage and step costs are known (sleeps stand in for decoding
 * and for the training step's work): it finds the compute floor, the achieved step time and the
 * share of it spent waiting for data.
 */
@Timeout(30)
class HeadspaceWaitingForDataTest {

    private static List<Integer> items(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code headspace} on a loader of one stage, {@code stage}, that takes {@code stageMillis} an item. */
    private static HeadspaceResult runOnLoader(Headspace<Integer, Integer> headspace, String stage, long stageMillis) {
        try (Pipeline<Integer> loader = Pipeline.from(items(1_000)).map(stage, x -> {
            sleepMillis(stageMillis);
            return x;
        }).build()) {
            HeadspaceResult r = headspace.run(loader);
            System.out.println(r.summary());
            return r;
        }
    }

    @Test
    void aLoaderSlowerThanTheStepShowsAsWaitingAndHeadspace() {
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> sleepMillis(5))
                .warmupSteps(3).measuredSteps(20).cachedBatches(4).samplesPerBatch(b -> 8);
        HeadspaceResult r = runOnLoader(headspace, "slow", 20);

        assertThat(r.floorStepMillis()).isCloseTo(5, within(2.0));
        assertThat(r.floorStepMedianMillis()).isCloseTo(5, within(2.0));
        assertThat(r.achievedStepMillis()).isCloseTo(20, within(6.0));
        assertThat(r.waitingShare()).isCloseTo(0.75, within(0.15));
        assertThat(r.headspace()).isCloseTo(r.achievedStepMillis() / r.floorStepMillis(), within(1e-9))
                .isGreaterThan(2.5);
        assertThat(r.samplesPerSecond()).isCloseTo(8 * 1000 / 20.0, within(8 * 1000 / 20.0 * 0.3));
        assertThat(r.ceilingSamplesPerSecond()).isGreaterThan(r.samplesPerSecond() * 2.5);
        assertThat(r.stepsMeasured()).isEqualTo(20);
        assertThat(r.loaderVerdict()).contains("slow");
        assertThat(r.summary()).contains("waiting for data", "a loader fast enough would make training");
    }

    @Test
    void aLoaderFasterThanTheStepLeavesNoHeadspace() {
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> sleepMillis(20))
                .warmupSteps(3).measuredSteps(20).cachedBatches(4);
        HeadspaceResult r = runOnLoader(headspace, "quick", 2);

        // sleeps overshoot by a millisecond or two on a busy machine: hence the step of 20 ms and the tolerances
        assertThat(r.floorStepMillis()).isCloseTo(20, within(8.0));
        assertThat(r.waitingShare()).isLessThan(0.05);
        assertThat(r.waitMillisPerStep()).isLessThan(1.0);
        assertThat(r.headspace()).isCloseTo(1.0, within(0.25));
        assertThat(r.samplesPerSecond()).isCloseTo(r.ceilingSamplesPerSecond(), within(r.ceilingSamplesPerSecond() * 0.25));
    }

    @Test
    void aLoaderThatEndsEarlySaysHowManyBatchesItNeeded() {
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> { })
                .warmupSteps(1).measuredSteps(5).cachedBatches(2);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> headspace.run(items(4)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ended after 4 batches")
                .hasMessageContaining("8 = 2 cached + 1 warm-up + 5 measured");
    }

    @Test
    void badSettingsAreRejectedWithTheExpectedRange() {
        Headspace<Integer, Integer> headspace = Headspace.of(batch -> { });

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> headspace.measuredSteps(0))
                .hasMessage("measuredSteps: 0 (expected: 1+)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> headspace.cachedBatches(0))
                .hasMessage("cachedBatches: 0 (expected: 1+)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> headspace.warmupSteps(-1))
                .hasMessage("warmupSteps: -1 (expected: 0+)");
    }
}
