package dev.stoker.video;

import java.util.Objects;

/**
 * A video could not be opened, indexed or decoded. Carries the file's path, the operation that
 * failed and a short machine-friendly {@link Reason} so that a loader can count, skip or retry
 * bad files without parsing messages.
 *
 * <p>Unchecked because a data loader treats a bad file as an item-level failure of a stage, not
 * as a condition every caller must spell out.
 */
public final class VideoException extends RuntimeException implements dev.stoker.pipeline.Failure.Reasoned {
    private static final long serialVersionUID = 1L;

    /** Why a video failed, as a stable category; {@link #code()} is what logs and stats print. */
    public enum Reason {
        NOT_FOUND("not-found"),
        EMPTY_FILE("empty-file"),
        IO("io"),
        UNKNOWN_FORMAT("unknown-format"),
        TRUNCATED("truncated"),
        CORRUPT("corrupt"),
        NO_VIDEO_STREAM("no-video-stream"),
        UNSUPPORTED_CODEC("unsupported-codec"),
        OUT_OF_RANGE("out-of-range"),
        INTERNAL("internal");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    private final String path;
    private final String operation;
    private final Reason reason;

    public VideoException(String path, String operation, Reason reason, String detail) {
        this(path, operation, reason, detail, null);
    }

    public VideoException(String path, String operation, Reason reason, String detail, Throwable cause) {
        super(reason.code() + ": " + operation + " failed for " + path + ": " + detail, cause);
        this.path = Objects.requireNonNull(path, "path");
        this.operation = Objects.requireNonNull(operation, "operation");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** The file the failure is about, as the caller named it. */
    public String path() {
        return path;
    }

    /** What was being done: "open", "index", "decode", "select-clip", ... */
    public String operation() {
        return operation;
    }

    public Reason reason() {
        return reason;
    }

    /** The reason code, which pipeline failure reports count by. */
    @Override
    public String failureReason() {
        return reason.code();
    }
}
