package dev.stoker.pipeline;

import java.util.List;

/**
 * The run ended because more items failed than its {@link FailureBudget} allows: how many failed of how many,
 * where the budget was counted and what it was, as fields (a command that suggests raising the budget asks for
 * this type, not for the message's words).
 */
public final class FailureBudgetExceededException extends PipelineFailedException {
    private static final long serialVersionUID = 1L;

    private final String scope;
    private final long failedItems;
    private final long items;
    private final FailureBudget budget;

    /**
     * @param message       the whole report (counts, failing stages, first failures)
     * @param scope         where the budget was counted: a stage's name, {@code "pipeline"}, {@code "ingest"}
     * @param failedItems   items that failed there
     * @param items         items seen there
     * @param budget        the budget they exceeded
     * @param failingStages every stage that had failures, the exceeding one first
     * @param firstFailures the first few failures of each failing stage
     * @param cause         the first failure's cause, or null
     */
    public FailureBudgetExceededException(String message, String scope, long failedItems, long items, FailureBudget budget,
                                          List<String> failingStages, List<Failure> firstFailures, Throwable cause) {
        super(message, failingStages, firstFailures, cause);
        this.scope = scope;
        this.failedItems = failedItems;
        this.items = items;
        this.budget = budget;
    }

    /** Where the budget was counted: a stage's name, {@code "pipeline"} or {@code "ingest"}. */
    public String scope() {
        return scope;
    }

    /** Items that failed in {@link #scope()} when the run ended. */
    public long failedItems() {
        return failedItems;
    }

    /** Items seen in {@link #scope()} when the run ended. */
    public long items() {
        return items;
    }

    /** The budget exceeded. */
    public FailureBudget budget() {
        return budget;
    }
}
