package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Memory of the process a pipeline runs in, as the stats stream (stoker-observe's {@code StatsPublisher}) sends it next to the stats.
 *
 * @param pid            process id
 * @param heapUsedBytes  Java heap in use
 * @param heapMaxBytes   the heap's limit ({@code -Xmx})
 * @param rssBytes       resident set size from {@code /proc/self/status}, -1 where unavailable (includes
 *                       native memory: FFmpeg's, off-heap batches)
 * @param offheapBytes   off-heap memory held on purpose: the host kinds of the {@link MemoryAccount} (batch pools,
 *                       shared memory, pinned buffers, packets, remote payloads) and the JVM's direct NIO buffers.
 *                       Not mapped files (shards, videos: the page cache's) nor FFmpeg's own allocations (in RSS)
 * @param memoryBytes    the {@link MemoryAccount} by kind ({@link MemoryAccount.Kind#key()}), GPU memory included
 */
public record ProcessStats(@JsonProperty("pid") long pid,
                           @JsonProperty("heap_used_bytes") long heapUsedBytes,
                           @JsonProperty("heap_max_bytes") long heapMaxBytes,
                           @JsonProperty("rss_bytes") long rssBytes,
                           @JsonProperty("offheap_bytes") long offheapBytes,
                           @JsonProperty("memory_bytes") Map<String, Long> memoryBytes) {

    private static final Path PROC_STATUS = Path.of("/proc/self/status");
    /** The JVM's pool of direct NIO buffers (its other pools are mapped files). */
    private static final String DIRECT_POOL = "direct";

    public ProcessStats {
        memoryBytes = memoryBytes == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(memoryBytes));
    }

    /** What a reader knows when a message carries no process: every figure -1, no account. */
    public static ProcessStats unknown() {
        return new ProcessStats(-1, -1, -1, -1, -1, Map.of());
    }

    /** Reads this process's memory now (a few microseconds: the MXBeans, the account's counters, one small /proc file). */
    public static ProcessStats read() {
        Runtime rt = Runtime.getRuntime();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals(DIRECT_POOL)) {
                direct += Math.max(0, pool.getMemoryUsed());
            }
        }
        return new ProcessStats(ProcessHandle.current().pid(), rt.totalMemory() - rt.freeMemory(), rt.maxMemory(),
                readRssBytes(), MemoryAccount.hostBytes() + direct, MemoryAccount.byKind());
    }

    /**
     * CPU time of the whole process so far (all threads, GC and JIT included), -1 where the JVM cannot tell: what a
     * measurement takes twice to learn the cores a stretch of work used.
     */
    public static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    private static long readRssBytes() {
        try {
            for (String line : Files.readAllLines(PROC_STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
