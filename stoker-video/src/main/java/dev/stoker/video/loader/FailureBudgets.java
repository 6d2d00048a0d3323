package dev.stoker.video.loader;

import dev.stoker.pipeline.FailureBudget;
import java.util.Locale;

/**
 * The short form of a loader's failure budget, {@code RATE[@MIN_ITEMS]}, as {@code --failure-budget} and the
 * Python bridge's {@code failure_budget=} take it: {@code 0.3} skips up to 30% of the samples (judged once
 * {@value #DEFAULT_MIN_ITEMS} were seen), {@code 0.3@100} once 100 were, {@code 0} stops at the first failure
 * and {@code 1} never stops.
 */
public final class FailureBudgets {
    /** Items seen before a rate applies when the short form names none. */
    public static final long DEFAULT_MIN_ITEMS = 50;

    private FailureBudgets() {
    }

    /**
     * The budget {@code spec} describes.
     *
     * @throws IllegalArgumentException naming {@code spec} and the expected form
     */
    public static FailureBudget parse(String spec) {
        String text = spec == null ? "" : spec.strip();
        int at = text.indexOf('@');
        try {
            double rate = Double.parseDouble(at < 0 ? text : text.substring(0, at));
            long minItems = at < 0 ? DEFAULT_MIN_ITEMS : Long.parseLong(text.substring(at + 1));
            if (rate >= 0 && rate <= 1 && minItems >= 0) {
                if (rate == 0 && at < 0) {
                    return FailureBudget.count(0);
                }
                return rate == 1 ? FailureBudget.UNLIMITED : FailureBudget.rate(rate, minItems);
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new IllegalArgumentException("'" + spec + "' (expected: RATE[@MIN_ITEMS] with RATE in 0..1 and MIN_ITEMS 0+,"
                + " e.g. 0.3 or 0.3@100; 0 stops at the first failure, 1 never stops)");
    }

    /** The short form of {@code budget} where it has one ({@code 0.3@100}), else its description. */
    public static String format(FailureBudget budget) {
        if (budget.maxFailures() == 0) {
            return "0";
        }
        if (budget.maxFailures() < 0) {
            return budget.maxFailureRate() >= 1 ? "1"
                    : String.format(Locale.ROOT, "%s@%d", budget.maxFailureRate(), budget.warmupItems());
        }
        return budget.toString();
    }
}
