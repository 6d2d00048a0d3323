package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.Failure;

/** A stage in the child failed on an item: the child's exception, by class name and message, keeping its reason. */
public final class ChildStageException extends RuntimeException implements Failure.Reasoned {
    private final String reason;
    private final String errorClass;

    public ChildStageException(String errorClass, String message, String reason) {
        super(errorClass + (message == null ? "" : ": " + message), null, false, false);
        this.errorClass = errorClass;
        this.reason = reason;
    }

    /** The class name of the exception thrown in the child. */
    public String errorClass() { return errorClass; }

    @Override
    public String failureReason() { return reason; }
}
