package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How many failed items a stage (or the whole pipeline) may skip before iteration ends with a
 * {@link PipelineFailedException}. Either bound may be absent: {@code maxFailures} caps the count,
 * {@code maxFailureRate} caps failures / items once {@code warmupItems} items have been seen (so that
 * one bad file among the first three does not look like a 33% failure rate).
 *
 * @param maxFailures    most failures allowed; {@code -1} for no count limit
 * @param maxFailureRate most failures per item allowed after warm-up, in [0, 1]; {@code 1} for no limit
 * @param warmupItems    items seen before the rate applies
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record FailureBudget(long maxFailures, double maxFailureRate, long warmupItems) {

    /** Default for stages: skip up to 10% of items, judged after 100 items. */
    public static final FailureBudget DEFAULT_STAGE = new FailureBudget(-1, 0.10, 100);
    /** Default for the whole pipeline: no extra limit beyond the stages'. */
    public static final FailureBudget UNLIMITED = new FailureBudget(-1, 1.0, 0);
    /** Items seen before a rate applies when the short form ({@link #parse}) names none. */
    public static final long SHORT_FORM_WARMUP_ITEMS = 50;

    public FailureBudget {
        if (maxFailures < -1) {
            throw new IllegalArgumentException("maxFailures: " + maxFailures + " (expected: -1 for no limit, or 0+)");
        }
        if (!(maxFailureRate >= 0 && maxFailureRate <= 1)) {
            throw new IllegalArgumentException("maxFailureRate: " + maxFailureRate + " (expected: 0..1)");
        }
        if (warmupItems < 0) {
            throw new IllegalArgumentException("warmupItems: " + warmupItems + " (expected: 0+)");
        }
    }

    /**
     * The budget {@code text} gives in the short form {@code RATE[@MIN_ITEMS]} that {@code --failure-budget}, the
     * options' JSON and the Python bridge's {@code failure_budget=} take: {@code 0.3} skips up to 30% of the items
     * (judged once {@value #SHORT_FORM_WARMUP_ITEMS} were seen), {@code 0.3@100} once 100 were, {@code 0} stops at
     * the first failure and {@code 1} never stops.
     *
     * @throws InvalidValueException ({@code failureBudget}) naming {@code text} and the expected form
     */
    public static FailureBudget parse(String text) {
        String given = text == null ? "" : text.strip();
        int at = given.indexOf('@');
        try {
            double rate = Double.parseDouble(at < 0 ? given : given.substring(0, at));
            long warmupItems = at < 0 ? SHORT_FORM_WARMUP_ITEMS : Long.parseLong(given.substring(at + 1));
            if (rate >= 0 && rate <= 1 && warmupItems >= 0) {
                if (rate == 0 && at < 0) {
                    return count(0);
                }
                return rate == 1 ? UNLIMITED : rate(rate, warmupItems);
            }
        } catch (NumberFormatException e) {
            // the exception below says what was expected
        }
        throw new InvalidValueException("failureBudget", "'" + text + "'", "RATE[@MIN_ITEMS] with RATE in 0..1 and"
                + " MIN_ITEMS 0+, e.g. 0.3 or 0.3@100; 0 stops at the first failure, 1 never stops");
    }

    /**
     * The short form that {@link #parse} reads back as this budget ({@code 0.3@100}, {@code 0}, {@code 1}), or the
     * description where it has none (a count above 0).
     */
    public String shortForm() {
        if (maxFailures == 0) {
            return "0";
        }
        if (maxFailures < 0) {
            return maxFailureRate >= 1 ? "1" : String.format(java.util.Locale.ROOT, "%s@%d", maxFailureRate, warmupItems);
        }
        return toString();
    }

    /** At most {@code n} failures in total. */
    public static FailureBudget count(long n) {
        return new FailureBudget(n, 1.0, 0);
    }

    /** At most {@code rate} failures per item, once {@code warmupItems} items were seen. */
    public static FailureBudget rate(double rate, long warmupItems) {
        return new FailureBudget(-1, rate, warmupItems);
    }

    /** True when {@code failures} out of {@code items} exceeds this budget. */
    public boolean isExceeded(long failures, long items) {
        if (maxFailures >= 0 && failures > maxFailures) {
            return true;
        }
        return maxFailureRate < 1.0 && items >= Math.max(1, warmupItems)
                && (double) failures / items > maxFailureRate;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (maxFailures >= 0) {
            s.append("at most ").append(maxFailures).append(" failures");
        }
        if (maxFailureRate < 1.0) {
            if (!s.isEmpty()) {
                s.append(", ");
            }
            s.append(String.format("at most %.0f%% after %d items", maxFailureRate * 100, warmupItems));
        }
        return s.isEmpty() ? "unlimited" : s.toString();
    }
}
