package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.pipeline.Pipeline;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Headspace on loaders and steps whose costs are known: it finds the compute floor, the achieved step time and the
 * share of it spent waiting for data. The timings run on a {@link FakeClock} (a loader that makes a batch every so
 * many milliseconds, a step that takes so many), so that the figures are exact under any load; on a real pipeline,
 * the verdict names its slow stage.
 */
@Timeout(30)
class HeadspaceWaitingForDataTest {

    private static List<Integer> items(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /**
     * A loader that makes one batch every {@code millis} on {@code clock}, from when it starts, and holds the ones made
     * ahead of the consumer: asking for a batch not made yet waits (the clock moves) until it is.
     */
    private static Iterator<Integer> loaderOnClock(FakeClock clock, long millis) {
        long start = clock.nanoTime();
        return new Iterator<>() {
            int made;

            @Override
            public boolean hasNext() { return true; }

            @Override
            public Integer next() {
                long ready = start + (made + 1) * millis * 1_000_000;
                if (ready > clock.nanoTime()) {
                    clock.parkNanos(ready - clock.nanoTime());
                }
                return made++;
            }
        };
    }

    @Test
    void aLoaderSlowerThanTheStepShowsAsWaitingAndHeadspace() {
        FakeClock clock = new FakeClock();
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> clock.parkNanos(5_000_000))
                .warmupSteps(3).measuredSteps(20).cachedBatches(4).samplesPerBatch(b -> 8).clock(clock);
        HeadspaceResult r = headspace.run(loaderOnClock(clock, 20));
        System.out.println(r.summary());

        assertThat(r.floorStepMillis()).isCloseTo(5, within(1e-9));
        assertThat(r.floorStepMedianMillis()).isCloseTo(5, within(1e-9));
        assertThat(r.achievedStepMillis()).isCloseTo(20, within(1e-9));
        assertThat(r.waitingShare()).isCloseTo(0.75, within(1e-9));
        assertThat(r.headspace()).isCloseTo(4, within(1e-9));
        assertThat(r.samplesPerSecond()).isCloseTo(8 * 1000 / 20.0, within(1e-6));
        assertThat(r.ceilingSamplesPerSecond()).isCloseTo(8 * 1000 / 5.0, within(1e-6));
        assertThat(r.stepsMeasured()).isEqualTo(20);
        assertThat(r.summary()).contains("75% of the time waiting for data", "a loader fast enough would make training 4.00x faster");
    }

    @Test
    void aLoaderFasterThanTheStepLeavesNoHeadspace() {
        FakeClock clock = new FakeClock();
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> clock.parkNanos(20_000_000))
                .warmupSteps(3).measuredSteps(20).cachedBatches(4).clock(clock);
        HeadspaceResult r = headspace.run(loaderOnClock(clock, 2));
        System.out.println(r.summary());

        assertThat(r.floorStepMillis()).isCloseTo(20, within(1e-9));
        assertThat(r.waitingShare()).isZero();
        assertThat(r.waitMillisPerStep()).isZero();
        assertThat(r.headspace()).isCloseTo(1.0, within(1e-9));
        assertThat(r.samplesPerSecond()).isCloseTo(r.ceilingSamplesPerSecond(), within(1e-6));
        assertThat(r.summary()).contains("the loader keeps up (1.00x)");
    }

    @Test
    void onAPipelineTheVerdictNamesItsSlowStage() {
        // The step takes no time and the stage sleeps: the consumer waits, the stage is busy all the time.
        Headspace<Integer, Integer> headspace = Headspace.<Integer>of(batch -> { })
                .warmupSteps(3).measuredSteps(20).cachedBatches(4);
        try (Pipeline<Integer> loader = Pipeline.from(items(1_000)).map("slow", x -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return x;
        }).build()) {
            HeadspaceResult r = headspace.run(loader);
            assertThat(r.stepsMeasured()).isEqualTo(20);
            assertThat(r.loaderVerdict()).contains("slow");
        }
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
