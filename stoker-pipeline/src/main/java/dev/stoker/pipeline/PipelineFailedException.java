package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.HostedStages;
import java.util.List;

/**
 * Ends iteration when a failure budget is exceeded ({@link FailureBudgetExceededException}) or the source, a stage
 * host or the runtime fails. Names every stage that had failures, with counts, and carries the first failures
 * (their causes are also attached as suppressed exceptions, so a stack trace shows them).
 */
public sealed class PipelineFailedException extends RuntimeException permits FailureBudgetExceededException {
    private final List<String> failingStages;
    private final List<Failure> firstFailures;

    /** For stage hosts ({@link HostedStages}) that end a run: {@code failingStages} names where, {@code cause} why. */
    public PipelineFailedException(String message, List<String> failingStages, Throwable cause) {
        this(message, failingStages, List.of(), cause);
    }

    /** With the first failures of each failing stage, which become suppressed exceptions of this one. */
    public PipelineFailedException(String message, List<String> failingStages, List<Failure> firstFailures, Throwable cause) {
        super(message, cause);
        this.failingStages = List.copyOf(failingStages);
        this.firstFailures = List.copyOf(firstFailures);
        for (Failure f : firstFailures) {
            if (f.cause() != cause) {
                addSuppressed(f.cause());
            }
        }
    }

    /** Every stage that had at least one failure, budget-exceeding stage first. */
    public List<String> failingStages() { return failingStages; }

    /** The first few failures of each failing stage. */
    public List<Failure> firstFailures() { return firstFailures; }
}
