package dev.stoker.tune;

import java.util.Arrays;

/**
 * A throughput from items counted in consecutive ticks, robust to a stall: the rate over the ticks whose
 * count is near the median tick's, so that a tick in which the machine stalled the consumer (and the burst
 * right after it) does not decide, while the others are counted exactly.
 *
 * <p>Why not the median of the tick rates: a count is whole items, so the median moves in steps of one item
 * per tick, and a pipeline that delivers at a steady pace (a consumer-bound one: 7.2 items per 30 ms tick)
 * measures the same wrong value every time (7 items, 3% low; 5.7 items read as 6, 5% high). That is a bias
 * no repetition averages out, and as large as the gains a tuner must tell apart; and where it flips between
 * two steps from one measurement to the next it reads as a noise of a whole step.
 */
final class TickRate {
    /** A tick this far off the median tick's count, relative to it, is a stall or the burst after one. */
    static final double OUTLIER_SHARE = 0.5;
    /** Nor is a difference of this many items or fewer an outlier (a count of 2 against 4 is chance). */
    static final int OUTLIER_MIN_ITEMS = 3;

    private TickRate() { }

    /**
     * Items per second over the ticks whose count is within max(50% of the median count, 3 items) of the
     * median's (all of them when fewer than half are: then there is no steady pace to keep to); {@code counts[i]}
     * items were counted in a tick of {@code nanos[i]}. 0 when no time passed.
     */
    static double of(long[] counts, long[] nanos) {
        if (counts.length != nanos.length) {
            throw new IllegalArgumentException("ticks: " + counts.length + " counts, " + nanos.length
                    + " durations (expected: as many)");
        }
        int n = counts.length;
        if (n == 0) {
            return 0;
        }
        long[] sorted = counts.clone();
        Arrays.sort(sorted);
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        double allowed = Math.max(OUTLIER_MIN_ITEMS, OUTLIER_SHARE * median);
        long items = 0;
        long time = 0;
        long allItems = 0;
        long allTime = 0;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            allItems += counts[i];
            allTime += nanos[i];
            if (Math.abs(counts[i] - median) <= allowed) {
                items += counts[i];
                time += nanos[i];
                kept++;
            }
        }
        if (2 * kept < n) {   // not a few stalls among steady ticks, but no steady pace at all: the span decides
            items = allItems;
            time = allTime;
        }
        return time <= 0 ? 0 : items / (time / 1e9);
    }
}
