package dev.stoker.video;

import java.util.Locale;
import java.util.Objects;

/**
 * A video could not be opened, indexed or decoded. Carries the file's path, the operation that
 * failed and a short machine-friendly {@link FailureReason} so that a loader can count, skip or retry
 * bad files without parsing messages.
 *
 * <p>Unchecked because a data loader treats a bad file as an item-level failure of a stage, not
 * as a condition every caller must spell out.
 */
public final class VideoException extends RuntimeException implements dev.stoker.pipeline.Failure.Reasoned {
    private static final long serialVersionUID = 1L;

    /** What was being done when a video failed: a closed set, spelled in messages and reports as {@code open-decoder}. */
    public enum Operation {
        /** Opening the container: reading its header, finding the video stream and its codec. */
        OPEN,
        /** Reading every packet's place and time. */
        INDEX,
        /** Making a decoder for the stream. */
        OPEN_DECODER,
        /** Choosing a clip's frames among the video's. */
        SELECT_CLIP,
        /** Choosing the packets a range of frames needs. */
        SELECT_RANGE,
        /** Decoding frames on the CPU. */
        DECODE,
        /** Scaling and cropping frames to RGB. */
        CONVERT,
        /** Decoding on a GPU's NVDEC engines. */
        NVDEC;

        /** {@code open-decoder}: the name in lower case, words joined by a hyphen. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final String path;
    private final Operation operation;
    private final FailureReason reason;
    private final String detail;

    public VideoException(String path, Operation operation, FailureReason reason, String detail) {
        this(path, operation, reason, detail, null);
    }

    public VideoException(String path, Operation operation, FailureReason reason, String detail, Throwable cause) {
        super(reason.code() + ": " + operation + " failed for " + path + ": " + detail, cause);
        this.path = Objects.requireNonNull(path, "path");
        this.operation = Objects.requireNonNull(operation, "operation");
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detail = detail;
    }

    /** The file the failure is about, as the caller named it. */
    public String path() { return path; }

    /** What was being done. */
    public Operation operation() { return operation; }

    /** What went wrong, without the path and operation the message starts with. */
    public String detail() { return detail; }

    /** Why, as the reason the loader, its quarantine and a scan count by. */
    public FailureReason reason() { return reason; }

    /** The reason code, which pipeline failure reports count by. */
    @Override
    public String failureReason() { return reason.code(); }
}
