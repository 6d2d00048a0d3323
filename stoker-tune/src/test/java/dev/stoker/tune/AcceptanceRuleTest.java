package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Bottleneck;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When the online tuner keeps a probe, and how it learns the noise that sets the bar. */
class AcceptanceRuleTest {

    @ParameterizedTest(name = "{5}")
    @CsvSource(delimiter = '|', textBlock = """
            true  | 106 | 100 | NaN  | true  | no noise estimate: +6% clears the smallest gain worth acting on
            true  | 104 | 100 | NaN  | false | no noise estimate: +4% does not
            false |  98 | 100 | NaN  | true  | no noise estimate: a decrease that lost 2% is kept (fewer workers win ties)
            false |  96 | 100 | NaN  | false | no noise estimate: one that lost 4% is not
            true  | 108 | 100 | 0.05 | false | 5% noise: +8% is inside 2 x the noise
            true  | 111 | 100 | 0.05 | true  | 5% noise: +11% is past it
            false |  94 | 100 | 0.05 | true  | 5% noise: -6% is inside 1.25 x the noise
            false |  93 | 100 | 0.05 | false | 5% noise: -7% is past it
            false |  84 | 100 | 0.5  | false | 50% noise: no noise keeps a 16% loss
            """)
    void keepsAProbeThatClearsTheBarForItsDirection(boolean increase, double measured, double baseline, double noise,
                                                    boolean kept, String why) {
        assertThat(AcceptanceRule.keeps(increase, measured, baseline, noise)).as(why).isEqualTo(kept);
    }

    @Test
    void theBarsAreFixedWithoutANoiseEstimateAndTheForgivenLossIsCapped() {
        assertThat(AcceptanceRule.increaseThreshold(Double.NaN)).isEqualTo(Bottleneck.MIN_GAIN);
        assertThat(AcceptanceRule.decreaseThreshold(0.5)).isEqualTo(AcceptanceRule.MAX_KEPT_LOSS);
    }

    @ParameterizedTest(name = "{5}")
    @CsvSource(delimiter = '|', textBlock = """
            true  | 104 | 100 | 0.05 | false | +4%: below 5%, plainly not kept
            true  | 108 | 100 | 0.05 | true  | +8%: between the fixed bar and 2 x noise
            true  | 111 | 100 | 0.05 | false | +11%: above 2 x noise, plainly kept
            false |  98 | 100 | 0.05 | false | -2%: a 2% loss is kept on any machine
            false |  95 | 100 | 0.05 | true  | -5%: only the noise forgives it
            false |  90 | 100 | 0.05 | false | -10%: past the noise, plainly stepped back
            true  | 108 | 100 | NaN  | false | no noise known: nothing to wait for
            """)
    void onlyTheGapBetweenTheFixedBarAndTheNoiseBarAsksForALongerLook(boolean increase, double measured, double baseline,
                                                                       double noise, boolean waits, String why) {
        assertThat(AcceptanceRule.onlyNoiseDecides(increase, measured, baseline, noise)).as(why).isEqualTo(waits);
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
