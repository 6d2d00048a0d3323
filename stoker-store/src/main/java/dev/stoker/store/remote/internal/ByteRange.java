package dev.stoker.store.remote.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Bytes {@code [offset, offset + length)} of an object: what one ranged GET asks for. */
public record ByteRange(long offset, long length) {
    public ByteRange {
        if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("range at " + offset + ", " + length + " bytes (expected: non-negative)");
        }
    }

    public long end() {
        return offset + length;
    }

    /** The HTTP {@code Range} header value; {@code bytes=a-b} is inclusive at both ends. */
    public String header() {
        return "bytes=" + offset + "-" + (end() - 1);
    }

    /**
     * Sorted, with ranges that overlap or touch joined (a GOP's packets lie back to back in a shard): one request
     * per run of bytes instead of one per GOP. Empty ranges are dropped.
     */
    public static List<ByteRange> merge(List<ByteRange> ranges) {
        List<ByteRange> sorted = new ArrayList<>(ranges);
        sorted.removeIf(r -> r.length == 0);
        sorted.sort(Comparator.comparingLong(ByteRange::offset));
        List<ByteRange> merged = new ArrayList<>(sorted.size());
        for (ByteRange r : sorted) {
            int last = merged.size() - 1;
            if (last >= 0 && r.offset <= merged.get(last).end()) {
                ByteRange prev = merged.get(last);
                merged.set(last, new ByteRange(prev.offset, Math.max(prev.end(), r.end()) - prev.offset));
            } else {
                merged.add(r);
            }
        }
        return merged;
    }
}
