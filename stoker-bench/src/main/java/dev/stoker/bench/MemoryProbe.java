package dev.stoker.bench;

import dev.stoker.pipeline.ProcessStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * Memory readings for "does it stay flat": heap in use, heap live after the last collection, the JVM's
 * direct buffers, and the process's resident set (which includes FFmpeg's and the batch pools' native
 * memory).
 *
 * @param heapUsedBytes    heap in use, garbage included: it saws up and down between collections
 * @param heapAfterGcBytes heap in use just after each pool's last collection: what survived, so it grows
 *                         only when something keeps objects alive (-1 before the first collection)
 * @param directBytes      NIO direct buffers
 * @param rssBytes         resident set size from /proc/self/status (-1 where unavailable)
 */
public record MemoryProbe(long heapUsedBytes, long heapAfterGcBytes, long directBytes, long rssBytes) {

    public static MemoryProbe read() {
        ProcessStats process = ProcessStats.read(); // heap in use, direct buffers, RSS
        return new MemoryProbe(process.heapUsedBytes(), heapAfterGc(), process.offheapBytes(), process.rssBytes());
    }

    /** Each reading the larger of the two: the peaks of a run. */
    public MemoryProbe max(MemoryProbe other) {
        return new MemoryProbe(Math.max(heapUsedBytes, other.heapUsedBytes), Math.max(heapAfterGcBytes, other.heapAfterGcBytes),
                Math.max(directBytes, other.directBytes), Math.max(rssBytes, other.rssBytes));
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
