package dev.stoker.store.shard;

import dev.stoker.store.ShardException;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.ByteRange;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A shard in object storage (or behind HTTP), read with ranged GETs: its header, footer and index once, and for
 * each clip the byte ranges of the packets its decode reads (a GOP's packets lie back to back, so one request per
 * run of GOPs), into a buffer laid out as the record's payload. Nothing else of the shard is ever downloaded.
 */
final class RemoteShardBytes {
    private final BlobStore store;
    private final String key;
    private final long sizeBytes;

    RemoteShardBytes(BlobStore store, String key, long sizeBytes) {
        this.store = store;
        this.key = key;
        this.sizeBytes = sizeBytes;
    }

    long size() {
        return sizeBytes;
    }

    /** Bytes {@code [offset, offset + length)} of the shard, downloaded now. */
    MemorySegment region(String name, long offset, long length) {
        try {
            return MemorySegment.ofArray(store.read(key, new ByteRange(offset, length)));
        } catch (IOException e) {
            throw new ShardException(name, -1, ShardException.Reason.IO, "cannot read bytes " + offset + ".."
                    + (offset + length) + " of " + store.location() + "/" + key + ": " + e.getMessage(), e);
        }
    }

    /**
     * A native buffer the size of a record's payload (FFmpeg reads packets by address), zero until {@link #fetch}
     * fills the packets a decode reads. Freed by the GC once no clip refers to it.
     */
    MemorySegment payload(long payloadBytes) {
        return Arena.ofAuto().allocate(Math.max(1, payloadBytes), 64).asSlice(0, payloadBytes);
    }

    /** Downloads packets {@code packets} of a record (payload at {@code payloadOffset} in the shard) into {@code payload}. */
    void fetch(String name, int record, RecordEntry entry, long payloadOffset, MemorySegment payload, BitSet packets) {
        List<ByteRange> ranges = new ArrayList<>();
        for (int p = packets.nextSetBit(0); p >= 0; p = packets.nextSetBit(p + 1)) {
            ranges.add(new ByteRange(entry.offsets()[p], entry.sizes()[p] + (long) VideoPackets.PADDING_BYTES));
        }
        for (ByteRange range : ByteRange.merge(ranges)) {
            byte[] bytes;
            try {
                bytes = store.read(key, new ByteRange(payloadOffset + range.offset(), range.length()));
            } catch (IOException e) {
                throw new ShardException(name, record, ShardException.Reason.IO, "cannot read packets at "
                        + range.offset() + " (" + range.length() + " bytes) of its payload from " + store.location()
                        + "/" + key + ": " + e.getMessage(), e);
            }
            MemorySegment.copy(bytes, 0, payload, ValueLayout.JAVA_BYTE, range.offset(), bytes.length);
        }
    }
}
