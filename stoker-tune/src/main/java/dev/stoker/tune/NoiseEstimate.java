package dev.stoker.tune;

import java.util.ArrayDeque;

/**
 * The noise the online tuner's measurements carry: the relative difference expected between two measurements
 * of the unchanged pipeline. Learned from such pairs, each difference scaled by the square root of the items the
 * two counted (a rate from 4x the items is about half as noisy, so a slow start does not set the bar for a faster
 * pipeline later); the median of the last {@value #SAMPLES}, so that one stall does not decide.
 */
final class NoiseEstimate {
    static final int SAMPLES = 7;

    private final ArrayDeque<Double> samples = new ArrayDeque<>();
    // Written by the tuner's thread, read by whoever asks Autotune.noise().
    private volatile double perRootItem = Double.NaN;

    /** Learns from two measurements between which nothing changed. */
    void observe(MeasuredWindow a, MeasuredWindow b) {
        double x = a.throughput();
        double y = b.throughput();
        if (x > 0 && y > 0 && a.items() > 0 && b.items() > 0) {
            samples.addLast(Math.abs(x - y) / ((x + y) / 2) * Math.sqrt((a.items() + b.items()) / 2.0));
            if (samples.size() > SAMPLES) {
                samples.removeFirst();
            }
            double[] sorted = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int n = sorted.length;
            perRootItem = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }
    }

    /** The relative noise of a measurement that counted {@code items} items; NaN before the first pair. */
    double forItems(long items) {
        return perRootItem / Math.sqrt(Math.max(1, items));
    }
}
