package dev.stoker.pipeline.subprocess.internal;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** Something sent (or to send) to the child, kept in the {@link InFlightLedger} until the child is done with it. */
final class SentEntry {
    private static final long[] NO_SKIPS = new long[0];

    enum Kind { ITEM, EPOCH_END, END, ERROR }

    final long id;
    final Kind kind;
    final int epoch;
    final Object value;
    final Throwable error;
    boolean sent;           // to the current child
    boolean settled;        // the current child holds only its batched descendants (no crash suspect)
    int crashes;            // times the child died while this was in flight
    private Set<Long> delivered;    // output sequences handed on (usually one)

    SentEntry(long id, Kind kind, int epoch, Object value, Throwable error) {
        this.id = id;
        this.kind = kind;
        this.epoch = epoch;
        this.value = value;
        this.error = error;
    }

    boolean firstDelivery(long seq) {
        if (delivered == null) {
            delivered = new HashSet<>(2);
        }
        return delivered.add(seq);
    }

    /** The output sequences already handed on, sorted: what the child is to skip when this is sent again. */
    long[] skips() {
        if (delivered == null) {
            return NO_SKIPS;
        }
        long[] seqs = delivered.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(seqs);
        return seqs;
    }
}
