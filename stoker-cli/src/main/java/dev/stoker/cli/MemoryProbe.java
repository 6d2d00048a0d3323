package dev.stoker.cli;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;

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
record MemoryProbe(long heapUsedBytes, long heapAfterGcBytes, long directBytes, long rssBytes) {

    static MemoryProbe read() {
        Runtime rt = Runtime.getRuntime();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += Math.max(0, pool.getMemoryUsed());
        }
        return new MemoryProbe(rt.totalMemory() - rt.freeMemory(), heapAfterGc(), direct, rss());
    }

    /** Each reading the larger of the two: the peaks of a run. */
    MemoryProbe max(MemoryProbe other) {
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

    private static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
    }
}
