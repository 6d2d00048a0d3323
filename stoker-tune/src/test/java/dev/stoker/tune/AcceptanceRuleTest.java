package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Bottleneck;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When the online tuner keeps a probe, and how it learns the noise that sets the bar. */
class AcceptanceRuleTest {

    @ParameterizedTest(name = "{4}")
    @CsvSource(delimiter = '|', textBlock = """
            true  | 106 | NaN  | true  | without a noise estimate +6% clears the smallest gain worth acting on
            true  | 104 | NaN  | false | without a noise estimate +4% does not
            false | 98  | NaN  | true  | a decrease that lost 2% is kept: fewer workers win ties
            false | 96  | NaN  | false | one that lost 4% is not
            true  | 108 | 0.05 | false | +8% is inside 2 x 5% noise
            true  | 111 | 0.05 | true  | +11% is outside 2 x 5% noise
            false | 94  | 0.05 | true  | -6% is inside 1.25 x 5% noise
            false | 93  | 0.05 | false | -7% is outside 1.25 x 5% noise
            false | 84  | 0.5  | false | no noise keeps a 16% loss
            """)
    void aProbeIsKeptWhenItClearsTheBarThatTheNoiseSets(boolean increase, double probe, double noise, boolean kept,
            String why) {
        assertThat(AcceptanceRule.keeps(increase, probe, 100, noise)).isEqualTo(kept);
    }

    @Test
    void withoutANoiseEstimateTheGainBarIsTheSmallestGainWorthActingOn() {
        assertThat(AcceptanceRule.increaseThreshold(Double.NaN)).isEqualTo(Bottleneck.MIN_GAIN);
    }

    @Test
    void aNoisyMachineForgivesALossOfAtMostFifteenPercent() {
        assertThat(AcceptanceRule.decreaseThreshold(0.5)).isEqualTo(AcceptanceRule.MAX_KEPT_LOSS);
    }

    @Test
    void onlyTheGapBetweenTheFixedBarAndTheNoiseBarAsksForALongerLook() {
        double noise = 0.05;
        assertThat(AcceptanceRule.onlyNoiseDecides(true, 104, 100, noise)).as("below 5%%: plainly not kept").isFalse();
        assertThat(AcceptanceRule.onlyNoiseDecides(true, 108, 100, noise)).isTrue();
        assertThat(AcceptanceRule.onlyNoiseDecides(true, 111, 100, noise)).as("above 2 x noise: plainly kept").isFalse();
        assertThat(AcceptanceRule.onlyNoiseDecides(false, 98, 100, noise)).as("a 2%% loss is kept on any machine").isFalse();
        assertThat(AcceptanceRule.onlyNoiseDecides(false, 95, 100, noise)).isTrue();
        assertThat(AcceptanceRule.onlyNoiseDecides(false, 90, 100, noise)).as("past the noise: plainly stepped back").isFalse();
        assertThat(AcceptanceRule.onlyNoiseDecides(true, 108, 100, Double.NaN)).as("no noise known: nothing to wait for").isFalse();
    }

    @Test
    void aMeasurementFarOffTheBaselineIsNotBelievedAtOnce() {
        assertThat(AcceptanceRule.farOffBaseline(125, 100, Double.NaN)).isTrue();
        assertThat(AcceptanceRule.farOffBaseline(85, 100, Double.NaN)).isFalse();
        assertThat(AcceptanceRule.farOffBaseline(125, 100, 0.1)).as("within 4 x a 10%% noise").isFalse();
        assertThat(AcceptanceRule.farOffBaseline(150, 100, 0.1)).isTrue();
    }

    @Test
    void theNoiseIsTheMedianDifferenceScaledByTheItemsCounted() {
        NoiseEstimate noise = new NoiseEstimate();
        assertThat(noise.forItems(100)).isNaN();
        noise.observe(window(100, 100), window(110, 100));   // 9.5% apart over 100 items
        noise.observe(window(100, 100), window(100, 100));   // the same
        noise.observe(window(100, 100), window(150, 100));   // a stall: 40% apart
        double median = 10 / 105.0;
        assertThat(noise.forItems(100)).as("the median pair decides, not the stall").isCloseTo(median, within(1e-9));
        assertThat(noise.forItems(400)).as("four times the items, half the noise").isCloseTo(median / 2, within(1e-9));
        noise.observe(window(100, 0), window(300, 0));   // nothing counted: nothing learned
        assertThat(noise.forItems(100)).isCloseTo(median, within(1e-9));
    }

    private static org.assertj.core.data.Offset<Double> within(double d) {
        return org.assertj.core.data.Offset.offset(d);
    }

    private static MeasuredWindow window(double throughput, long items) {
        return new MeasuredWindow(1, throughput, 0.5, Double.NaN, Map.of(), Map.of(), Map.of(), Map.of(), 0, items, 2);
    }
}
