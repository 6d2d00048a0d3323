package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.Failure;

/**
 * Why an item was skipped after it killed the child JVM twice (the second time alone in flight): a native
 * crash in a decoder, an out-of-memory kill. Counted under the reason {@value #REASON}.
 */
public final class ChildCrashedException extends RuntimeException implements Failure.Reasoned {
    /** The failure reason of a quarantined item. */
    public static final String REASON = "crashed the decoder";

    public ChildCrashedException(String message) {
        super(message, null, false, false);
    }

    @Override
    public String failureReason() { return REASON; }
}
