package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import java.util.ArrayList;
import java.util.List;

/** Where an object's bytes fall in blocks of {@code blockBytes} aligned to the object's start. */
record BlockLayout(int blockBytes) {

    long first(ByteRange r) {
        return r.offset() / blockBytes;
    }

    long last(ByteRange r) {
        return Math.max(r.offset(), r.end() - 1) / blockBytes;
    }

    long start(long index) {
        return index * blockBytes;
    }

    /** Block {@code index}'s length: a full block but for the object's last. */
    long length(BlockCache.CachedObject object, long index) {
        return Math.min(blockBytes, object.sizeBytes() - index * blockBytes);
    }

    /** The blocks {@code bytes} contiguous bytes can span at most, wherever they start. */
    long spanning(long bytes) {
        return bytes <= 0 ? 0 : (bytes + blockBytes - 1) / blockBytes + 1;
    }

    /** The blocks {@code ranges} touch, as runs {first, last} of adjacent blocks, ascending, each block once. */
    List<long[]> runs(BlockCache.CachedObject object, List<ByteRange> ranges) {
        List<long[]> runs = new ArrayList<>();
        for (ByteRange r : ByteRange.merge(ranges)) {
            checkWithin(object, r);
            long from = first(r);
            long to = last(r);
            long[] previous = runs.isEmpty() ? null : runs.getLast();
            if (previous != null && from <= previous[1] + 1) {
                previous[1] = Math.max(previous[1], to);
            } else {
                runs.add(new long[] {from, to});
            }
        }
        return runs;
    }

    static void checkWithin(BlockCache.CachedObject object, ByteRange r) {
        if (r.end() > object.sizeBytes()) {
            throw new IllegalArgumentException(object.key() + ": range " + r.header() + " (expected: within its "
                    + object.sizeBytes() + " bytes)");
        }
    }
}
