package dev.stoker.pipeline;

import java.util.List;

/**
 * The run ended because more items failed than its {@link FailureBudget} allows: how many failed of how many,
 * where the budget was counted and what it was, as {@link Exceeded} (a command that suggests raising the budget asks
 * for this type, not for the message's words).
 */
public final class FailureBudgetExceededException extends PipelineFailedException {
    private static final long serialVersionUID = 1L;

    private final transient Exceeded exceeded;

    /**
     * What ran out.
     *
     * @param scope       where the budget was counted: a stage's name, {@code "pipeline"}, {@code "ingest"}
     * @param failedItems items that failed there
     * @param items       items seen there
     * @param budget      the budget they exceeded
     */
    public record Exceeded(String scope, long failedItems, long items, FailureBudget budget) {
    }

    /**
     * @param message       the whole report (counts, failing stages, first failures)
     * @param exceeded      what ran out
     * @param failingStages every stage that had failures, the exceeding one first
     * @param firstFailures the first few failures of each failing stage
     * @param cause         the first failure's cause, or null
     */
    public FailureBudgetExceededException(String message, Exceeded exceeded, List<String> failingStages,
                                          List<Failure> firstFailures, Throwable cause) {
        super(message, failingStages, firstFailures, cause);
        this.exceeded = exceeded;
    }

    /** What ran out: where, how many of how many, which budget. */
    public Exceeded exceeded() { return exceeded; }
}
