package dev.stoker.tune.internal;

/**
 * One change the online autotuner made.
 *
 * @param atMillis  time since the autotuner started
 * @param stage     stage name, or {@code sink}
 * @param knob      {@code concurrency} or {@code queueCapacity}
 * @param from      value before
 * @param to        value after
 * @param reason    why, in words
 * @param outcome   {@code probe} (being measured), {@code kept}, {@code reverted} (a probe that did not pay:
 *                  the change back), or {@code budget} (a correction to stay within the CPU or RAM budget)
 * @param before    throughput before (items/s at the sink, the baseline)
 * @param after     throughput measured after (0 while probing)
 */
public record AutotuneChange(long atMillis, String stage, String knob, int from, int to, String reason, String outcome,
                             double before, double after) {
    @Override
    public String toString() {
        String rates = outcome.equals("kept") || outcome.equals("reverted") && after > 0
                ? String.format(java.util.Locale.ROOT, "%.1f→%.1f/s", before, after)
                : String.format(java.util.Locale.ROOT, "at %.1f/s", before);
        return String.format(java.util.Locale.ROOT, "%6.1fs %-8s %s.%s %d→%d (%s; %s)", atMillis / 1000.0, outcome,
                stage, knob, from, to, reason, rates);
    }
}
