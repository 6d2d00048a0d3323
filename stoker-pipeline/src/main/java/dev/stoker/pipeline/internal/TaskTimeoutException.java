package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.Failure;

/** A task ran past its stage's timeout and was interrupted; its item was skipped. */
public final class TaskTimeoutException extends RuntimeException implements Failure.Reasoned {
    public TaskTimeoutException(String stage, long timeoutMillis) {
        super("stage '" + stage + "': task exceeded its timeout of " + timeoutMillis + " ms and was interrupted");
    }

    @Override
    public String failureReason() {
        return "timeout";
    }
}
