package dev.stoker.tune;

import dev.stoker.pipeline.Bottleneck;

/**
 * When the online tuner keeps a probe. An increase is kept only when it raised throughput by more than
 * max({@link #KEEP_INCREASE}, 2 x noise); a decrease unless it lost more than max({@link #KEEP_DECREASE}, 1.25 x
 * noise), and never one that lost more than {@link #MAX_KEPT_LOSS} (hysteresis: fewer resources win ties). A
 * median difference is about 0.67 standard deviations of a difference, so 2 x noise is about 1.35 of them. The
 * noise ({@link NoiseEstimate}) is that of the measurement judged; NaN (not known yet) leaves the fixed bars.
 */
final class AcceptanceRule {
    /** The smallest gain worth acting on: the same bar that makes a consumer the bottleneck ({@link Bottleneck}). */
    static final double KEEP_INCREASE = Bottleneck.MIN_GAIN;
    static final double KEEP_DECREASE = 0.03;
    /** On a very noisy measurement a real loss could hide in the noise: no step keeps one above this. */
    static final double MAX_KEPT_LOSS = 0.15;
    /** Off the baseline by more than this share (or 4 x the noise), an unchanged pipeline is measured again. */
    static final double OFF_BASELINE = 0.2;

    private AcceptanceRule() {
    }

    /** The relative gain an increase must beat. */
    static double increaseThreshold(double noise) {
        return Double.isNaN(noise) ? KEEP_INCREASE : Math.max(KEEP_INCREASE, 2 * noise);
    }

    /** The relative loss a decrease may have and still be kept. */
    static double decreaseThreshold(double noise) {
        return Double.isNaN(noise) ? KEEP_DECREASE : Math.min(MAX_KEPT_LOSS, Math.max(KEEP_DECREASE, 1.25 * noise));
    }

    /** The bar of a probe in its direction: the gain it needs, or the loss it is allowed. */
    static double threshold(boolean increase, double noise) {
        return increase ? increaseThreshold(noise) : decreaseThreshold(noise);
    }

    /**
     * Whether only the noise decides: a gain that would count on a quiet machine but does not clear the noise, or a
     * loss that only the noise forgives. Then the probe is measured as long again and the whole judged, with the
     * smaller noise of twice the items: one unlucky measurement neither turns down a real gain nor keeps a real loss.
     */
    static boolean onlyNoiseDecides(boolean increase, double after, double baseline, double noise) {
        return increase
                ? after > baseline * (1 + KEEP_INCREASE) && after <= baseline * (1 + increaseThreshold(noise))
                : after < baseline * (1 - KEEP_DECREASE) && after >= baseline * (1 - decreaseThreshold(noise));
    }

    /** Whether a probe that took throughput from {@code baseline} to {@code after} stays. */
    static boolean keeps(boolean increase, double after, double baseline, double noise) {
        return increase ? after > baseline * (1 + increaseThreshold(noise)) : after >= baseline * (1 - decreaseThreshold(noise));
    }

    /**
     * Whether the unchanged pipeline measured so far off its baseline that the measurement is not believed until it
     * is seen again: a stretch in which the loaded machine slowed every thread, or a workload that changed.
     */
    static boolean farOffBaseline(double measured, double baseline, double noise) {
        double off = Math.abs(measured / baseline - 1);
        return off > (Double.isNaN(noise) ? OFF_BASELINE : Math.max(OFF_BASELINE, 4 * noise));
    }
}
