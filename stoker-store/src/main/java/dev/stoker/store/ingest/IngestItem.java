package dev.stoker.store.ingest;

import dev.stoker.store.format.internal.DecodedSample;
import dev.stoker.store.format.internal.EncodedSample;
import dev.stoker.store.shard.internal.RecordEntry;

/**
 * One source video travelling through the ingest pipeline. Each stage fills the next field, or records
 * why the source failed; a failed item still reaches the writer, which lists it in the shard, so shard
 * contents never depend on which sources happened to fail first. Closing frees decoded frames.
 */
final class IngestItem implements AutoCloseable {
    final RecordEntry.Source source;
    byte[] bytes;
    DecodedSample decoded;
    EncodedSample encoded;
    /** The stored frames the source's keyframes fell on (RecordEntry#sourceKeyframes). */
    int[] sourceKeyframes;
    String failureReason;
    /** What failed, without the source's path or the reason (the shard and the report keep those beside it). */
    String failureMessage;

    IngestItem(RecordEntry.Source source) {
        this.source = source;
    }

    boolean failed() {
        return failureReason != null;
    }

    void fail(String reason, String message) {
        failureReason = reason;
        failureMessage = message;
        bytes = null;
        encoded = null;
        close();
    }

    @Override
    public void close() {
        if (decoded != null) {
            decoded.close();
            decoded = null;
        }
    }

    @Override
    public String toString() { return source.path(); }
}
