package dev.stoker.pipeline.subprocess.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A single-producer, single-consumer ring of length-prefixed records in shared memory (a region of a
 * mapped file), for one direction between two processes. The region starts with the two positions, each
 * on its own cache line: the producer's {@code tail} and the consumer's {@code head}, byte counts that only
 * grow. A record is a 24-byte header ({@code int} payload length, {@code int} type, {@code long} id,
 * {@code long} seq) and its payload, padded to 8 bytes; a record never wraps: when it does not fit before
 * the end, a padding record fills the rest and the record starts again at 0.
 *
 * <p>Memory ordering (as in Aeron and JCTools): the producer writes header and payload with plain stores,
 * then publishes the new tail with a release store ({@link #soTail}); the consumer reads the tail with an
 * acquire load ({@link #lvTail}), reads the record, and frees its bytes by a release store of the head. So a
 * record is never seen half-written, and its bytes are never overwritten while still being read.
 *
 * <p>Not thread-safe beyond that contract: one producer thread and one consumer thread (in either process).
 */
public final class SharedRing {
    /** Bytes before the data: tail at 0, head at 128 (cache lines apart). */
    public static final long HEADER_BYTES = 256;
    /** Bytes of a record header. */
    public static final int RECORD_HEADER_BYTES = 24;
    /** Type of the padding record that fills the end of the data before a wrap. */
    static final int PADDING = -1;

    private static final long TAIL = 0;
    private static final long HEAD = 128;
    private static final VarHandle POSITION = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private final MemorySegment region;
    private final MemorySegment data;
    private final long capacity;
    // Producer side: the position being written, and the last head seen (re-read only when the ring looks full).
    private long claimedTail;
    private long claimedEnd;
    private long cachedHead;
    // Consumer side: the record being read.
    private long readEnd;

    /** A ring over {@code region}, whose first {@link #HEADER_BYTES} hold the positions; data capacity a multiple of 8. */
    public SharedRing(MemorySegment region) {
        if (region.byteSize() <= HEADER_BYTES + RECORD_HEADER_BYTES || (region.byteSize() - HEADER_BYTES) % 8 != 0) {
            throw new IllegalArgumentException("ring region: " + region.byteSize() + " bytes (expected: "
                    + HEADER_BYTES + " + a multiple of 8, more than " + RECORD_HEADER_BYTES + ")");
        }
        this.region = region;
        this.data = region.asSlice(HEADER_BYTES);
        this.capacity = data.byteSize();
        this.claimedTail = this.claimedEnd = lvTail();
        this.cachedHead = this.readEnd = lvHead();
    }

    /** Bytes a region must have for {@code dataBytes} of records. */
    public static long regionBytes(long dataBytes) {
        return HEADER_BYTES + align(dataBytes);
    }

    /** Bytes of data: the largest record, header included, that fits. */
    public long capacity() { return capacity; }

    /** The most payload one record can carry. */
    public long maxPayloadBytes() {
        return capacity - RECORD_HEADER_BYTES;
    }

    /** Sets both positions to 0: only while neither side is using the ring (e.g. its other process has died). */
    public void reset() {
        POSITION.setRelease(region, TAIL, 0L);
        POSITION.setRelease(region, HEAD, 0L);
        claimedTail = claimedEnd = cachedHead = readEnd = 0;
    }

    long lvTail() {
        return (long) POSITION.getAcquire(region, TAIL);
    }

    private void soTail(long value) {
        POSITION.setRelease(region, TAIL, value);
    }

    long lvHead() {
        return (long) POSITION.getAcquire(region, HEAD);
    }

    private void soHead(long value) {
        POSITION.setRelease(region, HEAD, value);
    }

    /** Bytes written and not yet consumed. */
    public long bytesInFlight() {
        return lvTail() - lvHead();
    }

    // ---- producer ----

    /**
     * Claims room for a record with {@code payloadBytes} of payload and returns the payload's slice to write
     * into, or {@code null} when the ring has no room now (try again later). {@link #commit} publishes it.
     *
     * @throws IllegalArgumentException when the record could never fit
     */
    public MemorySegment tryClaim(int type, long id, long seq, long payloadBytes) {
        long recordBytes = align(RECORD_HEADER_BYTES + payloadBytes);
        if (payloadBytes < 0 || payloadBytes > Integer.MAX_VALUE || recordBytes > capacity) {
            throw new IllegalArgumentException("record of " + payloadBytes + " bytes does not fit a ring of " + capacity
                    + " bytes (expected: at most " + maxPayloadBytes() + "; raise SubprocessOptions.ringBytes)");
        }
        long tail = lvTailPlain();
        long offset = tail % capacity;
        long toEnd = capacity - offset;
        if (recordBytes > toEnd) {
            // Fill the end with padding first, publish it, and start the record at 0 (once the consumer is past).
            if (!hasRoom(tail, toEnd)) {
                return null;
            }
            data.set(INT, offset, 0);
            data.set(INT, offset + 4, PADDING);
            tail += toEnd;
            soTail(tail);
            offset = 0;
        }
        if (!hasRoom(tail, recordBytes)) {
            return null;
        }
        data.set(INT, offset, (int) payloadBytes);
        data.set(INT, offset + 4, type);
        data.set(LONG, offset + 8, id);
        data.set(LONG, offset + 16, seq);
        claimedTail = tail;
        claimedEnd = tail + recordBytes;
        return data.asSlice(offset + RECORD_HEADER_BYTES, payloadBytes);
    }

    /** Publishes the record claimed last. */
    public void commit() {
        soTail(claimedEnd);
        claimedTail = claimedEnd;
    }

    /** Claims, writes nothing, commits: a record with no payload. False when there is no room now. */
    public boolean tryWrite(int type, long id, long seq) {
        if (tryClaim(type, id, seq, 0) == null) {
            return false;
        }
        commit();
        return true;
    }

    private long lvTailPlain() { return claimedTail; }

    private boolean hasRoom(long tail, long bytes) {
        if (tail + bytes - cachedHead <= capacity) {
            return true;
        }
        cachedHead = lvHead();
        return tail + bytes - cachedHead <= capacity;
    }

    // ---- consumer ----

    /**
     * Reads the next record's header into {@code into} and points it at the payload; false when the ring is
     * empty. The payload stays valid until {@link #release}, which must follow before the next poll.
     */
    public boolean poll(Record into) {
        long head = readEnd;
        while (true) {
            long tail = lvTail();
            if (head >= tail) {
                return false;
            }
            long offset = head % capacity;
            int type = data.get(INT, offset + 4);
            if (type == PADDING) {
                head += capacity - offset;
                readEnd = head;
                soHead(head);
                continue;
            }
            long payloadBytes = data.get(INT, offset) & 0xFFFF_FFFFL;
            into.type = type;
            into.id = data.get(LONG, offset + 8);
            into.seq = data.get(LONG, offset + 16);
            into.payload = data.asSlice(offset + RECORD_HEADER_BYTES, payloadBytes);
            readEnd = head + align(RECORD_HEADER_BYTES + payloadBytes);
            return true;
        }
    }

    /** Frees the record read last: the producer may now overwrite it. */
    public void release() {
        soHead(readEnd);
    }

    private static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }

    /** A record as read: reused from poll to poll. */
    public static final class Record {
        public int type;
        public long id;
        public long seq;
        public MemorySegment payload;
    }
}
