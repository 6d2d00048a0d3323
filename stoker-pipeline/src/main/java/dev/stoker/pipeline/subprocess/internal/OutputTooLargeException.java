package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.Failure;

/** An output that cannot cross: larger than the results ring. */
final class OutputTooLargeException extends IllegalArgumentException implements Failure.Reasoned {
    OutputTooLargeException(String message) {
        super(message);
    }

    @Override
    public String failureReason() {
        return "too large for the ring";
    }
}
