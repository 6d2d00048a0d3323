package dev.stoker.bench.internal;

import dev.stoker.pipeline.ProcessStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Memory readings for "does it stay flat": heap in use, heap live after the last collection, the off-heap memory
 * Stoker holds on purpose (its memory account: batch pools, shared memory, pinned buffers, packets), and the
 * process's resident set (which also includes FFmpeg's own native memory).
 *
 * @param heapUsedBytes    heap in use, garbage included: it saws up and down between collections
 * @param heapAfterGcBytes heap in use just after each pool's last collection: what survived, so it grows
 *                         only when something keeps objects alive (-1 before the first collection)
 * @param offheapBytes     the account's host memory and the JVM's direct buffers ({@link ProcessStats#offheapBytes})
 * @param rssBytes         resident set size from /proc/self/status (-1 where unavailable)
 * @param memoryBytes      the account by kind ({@link ProcessStats#memoryBytes})
 */
public record MemoryProbe(long heapUsedBytes, long heapAfterGcBytes, long offheapBytes, long rssBytes,
                          Map<String, Long> memoryBytes) {

    public MemoryProbe {
        memoryBytes = memoryBytes == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(memoryBytes));
    }

    public static MemoryProbe read() {
        ProcessStats process = ProcessStats.read(); // heap in use, the memory account, RSS
        return new MemoryProbe(process.heapUsedBytes(), heapAfterGc(), process.offheapBytes(), process.rssBytes(),
                process.memoryBytes());
    }

    /** Each reading the larger of the two: the peaks of a run. */
    public MemoryProbe max(MemoryProbe other) {
        Map<String, Long> kinds = new LinkedHashMap<>(memoryBytes);
        other.memoryBytes.forEach((kind, bytes) -> kinds.merge(kind, bytes, Math::max));
        return new MemoryProbe(Math.max(heapUsedBytes, other.heapUsedBytes), Math.max(heapAfterGcBytes, other.heapAfterGcBytes),
                Math.max(offheapBytes, other.offheapBytes), Math.max(rssBytes, other.rssBytes), kinds);
    }

    private static long heapAfterGc() {
        long total = 0;
        boolean any = false;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage afterGc = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
            if (afterGc != null && afterGc.getUsed() >= 0) {
                total += afterGc.getUsed();
                any |= afterGc.getUsed() > 0;
            }
        }
        return any ? total : -1;
    }

    public static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
    }
}
