package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The tick rate counts a steady pace exactly (no step of one item per tick) and leaves stalls out. */
class TickRateTest {
    private static final long TICK = 30_000_000;

    private static long[] ticks(int n) {
        long[] nanos = new long[n];
        Arrays.fill(nanos, TICK);
        return nanos;
    }

    @Test
    void aSteadyPaceIsCountedExactlyNotInStepsOfOneItemPerTick() {
        // 240/s in 30 ms ticks: 7.2 items a tick, so 7, 7, 7, 7, 8 over and over. The median tick says 233/s.
        long[] counts = {7, 7, 7, 7, 8, 7, 7, 7, 7, 8};
        assertThat(TickRate.of(counts, ticks(10))).isCloseTo(240, within(1e-9));
    }

    @Test
    void aStalledTickAndTheBurstAfterItAreLeftOut() {
        long[] counts = {7, 7, 1, 12, 7, 8, 7, 7, 8, 7};
        assertThat(TickRate.of(counts, ticks(10))).isCloseTo(58 / (8 * 0.03), within(1e-9));
    }

    @Test
    void fewItemsPerTickAreNotOutliers() {
        // 2 items against 4 is chance at this rate, not a stall: every tick counts.
        long[] counts = {2, 4, 3, 0, 5, 3, 4, 2, 3, 4};
        assertThat(TickRate.of(counts, ticks(10))).isCloseTo(30 / 0.3, within(1e-9));
    }

    @Test
    void withoutASteadyPaceTheWholeSpanDecides() {
        long[] counts = {0, 20, 0, 20, 0, 20, 0, 20};
        assertThat(TickRate.of(counts, ticks(8))).isCloseTo(80 / 0.24, within(1e-9));
    }

    @Test
    void ticksOfDifferentLengthsWeighByTheirTime() {
        assertThat(TickRate.of(new long[] {10, 20}, new long[] {50_000_000, 100_000_000})).isCloseTo(200, within(1e-9));
        assertThat(TickRate.of(new long[0], new long[0])).isZero();
    }
}
