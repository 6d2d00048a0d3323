package dev.stoker.video.loader.internal;

import dev.stoker.pipeline.Failure;
import dev.stoker.video.FailureReason;

/** A sample the loader could not read (before FFmpeg saw it), counted by its {@link FailureReason}. */
public final class LoaderException extends RuntimeException implements Failure.Reasoned {
    private final FailureReason reason;

    public LoaderException(FailureReason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Why, as the reason the loader, its quarantine and a scan count by. */
    public FailureReason reason() { return reason; }

    @Override
    public String failureReason() { return reason.code(); }
}
