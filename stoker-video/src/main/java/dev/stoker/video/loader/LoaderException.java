package dev.stoker.video.loader;

import dev.stoker.pipeline.Failure;

/** A sample the loader could not read, with a short reason for counting ("not-found", "empty-file", "io-error"). */
public final class LoaderException extends RuntimeException implements Failure.Reasoned {
    private final String reason;

    LoaderException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    @Override
    public String failureReason() {
        return reason;
    }
}
