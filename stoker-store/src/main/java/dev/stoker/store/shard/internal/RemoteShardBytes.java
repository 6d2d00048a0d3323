package dev.stoker.store.shard.internal;

import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A shard in object storage (or behind HTTP), read with ranged GETs: its header, footer and index once, and for
 * each clip the byte ranges of the packets its decode reads (a GOP's packets lie back to back, so one request per
 * run of GOPs), into a buffer laid out as the record's payload. Nothing else of the shard is ever downloaded. With a
 * {@link BlockCache}, every read goes through it: cached blocks come from local disk, missing ones are downloaded
 * whole (a block at a time, adjacent ones in one GET) and kept for the next read.
 */
public final class RemoteShardBytes {
    private static final Cleaner CLEANER = Cleaner.create();

    private final BlobStore store;
    private final String key;
    private final long sizeBytes;
    private final BlockCache cache;
    private final BlockCache.CachedObject cached;

    public RemoteShardBytes(BlobStore store, String key, long sizeBytes, BlockCache cache, String version) {
        this.store = store;
        this.key = key;
        this.sizeBytes = sizeBytes;
        this.cache = cache;
        this.cached = cache == null ? null : cache.object(store, key, sizeBytes, version);
    }

    /** Bytes {@code range} of the shard: through the cache, if any. */
    private byte[] read(ByteRange range) throws IOException {
        return cache != null ? cache.read(cached, range) : store.read(key, range);
    }

    public long size() { return sizeBytes; }

    /** Bytes {@code [offset, offset + length)} of the shard, downloaded now. */
    public MemorySegment region(String name, long offset, long length) {
        try {
            return MemorySegment.ofArray(read(new ByteRange(offset, length)));
        } catch (IOException e) {
            throw new ShardException(name, -1, ShardException.Reason.IO, "cannot read bytes " + offset + ".."
                    + (offset + length) + " of " + store.location() + "/" + key + ": " + e.getMessage(), e);
        }
    }

    /**
     * A native buffer the size of a record's payload (FFmpeg reads packets by address), zero until {@link #fetch}
     * fills the packets a decode reads. Freed by the GC once no clip refers to it.
     */
    public MemorySegment payload(long payloadBytes) {
        long bytes = Math.max(1, payloadBytes);
        MemorySegment payload = Arena.ofAuto().allocate(bytes, 64).asSlice(0, payloadBytes);
        MemoryAccount.allocated(MemoryAccount.Kind.REMOTE_PAYLOADS, bytes);
        // Freed with the arena once the segment is unreachable: the account learns it from the same collection.
        CLEANER.register(payload, () -> MemoryAccount.freed(MemoryAccount.Kind.REMOTE_PAYLOADS, bytes));
        return payload;
    }

    /** Downloads packets {@code packets} of a record (payload at {@code payloadOffset} in the shard) into {@code payload}. */
    public void fetch(String name, int record, RecordEntry entry, long payloadOffset, MemorySegment payload, BitSet packets) {
        for (ByteRange range : payloadRanges(entry, packets)) {
            byte[] bytes;
            try {
                bytes = read(new ByteRange(payloadOffset + range.offset(), range.length()));
            } catch (IOException e) {
                throw new ShardException(name, record, ShardException.Reason.IO, "cannot read packets at "
                        + range.offset() + " (" + range.length() + " bytes) of its payload from " + store.location()
                        + "/" + key + ": " + e.getMessage(), e);
            }
            MemorySegment.copy(bytes, 0, payload, ValueLayout.JAVA_BYTE, range.offset(), bytes.length);
        }
    }

    /**
     * Holds the cache blocks packets {@code packets} of a record lie in (payload at {@code payloadOffset}), downloading
     * the missing ones: reading ahead. Null without a cache.
     */
    public BlockCache.Pin pin(String name, int record, RecordEntry entry, long payloadOffset, BitSet packets) {
        if (cache == null) {
            return null;
        }
        try {
            return cache.pin(cached, fileRanges(entry, payloadOffset, packets));
        } catch (IOException e) {
            throw new ShardException(name, record, ShardException.Reason.IO, "cannot read ahead from " + store.location()
                    + "/" + key + ": " + e.getMessage(), e);
        }
    }

    /** The cache bytes {@link #pin} would hold; 0 without a cache. */
    public long pinBytes(RecordEntry entry, long payloadOffset, BitSet packets) {
        return cache == null ? 0 : cache.blockBytes(cached, fileRanges(entry, payloadOffset, packets));
    }

    private static List<ByteRange> fileRanges(RecordEntry entry, long payloadOffset, BitSet packets) {
        List<ByteRange> ranges = new ArrayList<>();
        for (ByteRange r : payloadRanges(entry, packets)) {
            ranges.add(new ByteRange(payloadOffset + r.offset(), r.length()));
        }
        return ranges;
    }

    /** The payload bytes of {@code packets} (each with its padding), adjacent ones merged: one GET a run. */
    private static List<ByteRange> payloadRanges(RecordEntry entry, BitSet packets) {
        List<ByteRange> ranges = new ArrayList<>();
        for (int p = packets.nextSetBit(0); p >= 0; p = packets.nextSetBit(p + 1)) {
            ranges.add(new ByteRange(entry.offsets()[p], entry.sizes()[p] + (long) VideoPackets.PADDING_BYTES));
        }
        return ByteRange.merge(ranges);
    }
}
