package dev.stoker.pipeline;

/**
 * One failed task: which stage, which item (its description and pipeline-wide id), and why. The item
 * was skipped. {@code reason} is a short category for counting (the exception's simple class name
 * unless the exception says otherwise through {@link Reasoned}).
 */
public record Failure(String stage, long itemId, String item, String reason, Throwable cause, long timestampMillis) {

    /** Implemented by exceptions that know a better counting category than their class name. */
    public interface Reasoned {
        String failureReason();
    }

    /** The counting category of {@code cause}: its {@link Reasoned#failureReason()}, or its simple class name. */
    public static String reasonOf(Throwable cause) {
        return cause instanceof Reasoned r ? r.failureReason() : cause.getClass().getSimpleName();
    }

    /** One line: {@code decode: item 'a.mp4' (#12): VideoException: moov atom not found}. */
    public String describe() {
        return stage + ": item '" + item + "' (#" + itemId + "): " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
}
