package dev.stoker.store.internal;

import dev.stoker.pipeline.Failure;
import java.util.Objects;

/**
 * A shard or one of its records is unusable: the message names the shard file, the record (when one
 * is concerned) and what was found against what was expected. {@link #reason()} is a stable code the
 * pipeline's failure reports count by.
 */
public final class ShardException extends RuntimeException implements Failure.Reasoned {
    private static final long serialVersionUID = 1L;

    /** Why a shard record is unusable. */
    public enum Reason {
        /** A CRC32C does not match the bytes. */
        CHECKSUM("checksum"),
        /** The file ends before a record, index or footer it must hold. */
        TRUNCATED("truncated"),
        /** An offset or size points outside the file or the record. */
        BAD_OFFSET("bad-offset"),
        /** Written by another format version, or not a shard at all. */
        VERSION("version"),
        /** The manifest and the shard disagree, or a file is missing. */
        INCONSISTENT("inconsistent"),
        /** Reading the file failed (the same code as a video's: {@code FailureReason.IO_ERROR}). */
        IO("io-error");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        public String code() { return code; }
    }

    private final String shard;
    private final int record;
    private final Reason reason;
    private final String detail;

    /**
     * @param shard  the shard file name
     * @param record the record number inside the shard, or -1 when the shard as a whole is concerned
     */
    public ShardException(String shard, int record, Reason reason, String detail) {
        this(shard, record, reason, detail, null);
    }

    public ShardException(String shard, int record, Reason reason, String detail, Throwable cause) {
        super(reason.code() + ": " + shard + (record >= 0 ? " record " + record : "") + ": " + detail, cause);
        this.shard = Objects.requireNonNull(shard, "shard");
        this.record = record;
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detail = detail;
    }

    /**
     * This failure as one of record {@code record}: a damaged shard (header, footer, index) fails each of its
     * records, and a reader's error should name the record it was asked for.
     */
    public ShardException forRecord(int record) {
        return record == this.record ? this : new ShardException(shard, record, reason, detail, this);
    }

    /** The shard file name. */
    public String shard() { return shard; }

    /** The record inside the shard, or -1 for the shard as a whole. */
    public int record() { return record; }

    public Reason reason() { return reason; }

    /** What is wrong, without the shard and record the message starts with: {@code "checksum: payload of ..."}. */
    public String problem() {
        return reason.code() + ": " + detail;
    }

    @Override
    public String failureReason() {
        return "shard-" + reason.code();
    }
}
