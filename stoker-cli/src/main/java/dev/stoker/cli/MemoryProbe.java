package dev.stoker.cli;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Memory readings for "does it stay flat": heap in use, the JVM's direct buffers, and the process's
 * resident set (which includes FFmpeg's and the batch pools' native memory).
 *
 * @param heapUsedBytes  heap in use
 * @param directBytes    NIO direct buffers
 * @param rssBytes       resident set size from /proc/self/status (-1 where unavailable)
 */
record MemoryProbe(long heapUsedBytes, long directBytes, long rssBytes) {

    static MemoryProbe read() {
        Runtime rt = Runtime.getRuntime();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += Math.max(0, pool.getMemoryUsed());
        }
        return new MemoryProbe(rt.totalMemory() - rt.freeMemory(), direct, rss());
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
