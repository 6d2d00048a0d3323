package dev.stoker.bench.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.store.prefetch.PrefetchStats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * What {@code stoker bench formats} measured, as the table it prints and the JSON it writes: one row a storage
 * format (warm and cold runs), and raw's read bandwidth against a memcpy of the same bytes.
 */
public final class FormatsReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FormatsReport() {
    }

    /** One row: a storage format's figures. */
    public record Row(String format, long diskBytes, int samples, Measurement warm, Measurement cold) {
        public double diskBytesPerClip() {
            return (double) diskBytes / samples;
        }
    }

    /** One measured run. */
    public record Measurement(double samplesPerSecond, double cpuSecondsPerClip, long clips, double seconds,
                       PrefetchStats prefetch) {
    }

    /** One thread copying 256 MiB between off-heap buffers: the best of 5, in bytes per second. */
    public static double memcpyBytesPerSecond() {
        long bytes = 256L << 20;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment from = arena.allocate(bytes, 4096);
            MemorySegment to = arena.allocate(bytes, 4096);
            from.fill((byte) 1);
            to.fill((byte) 0);
            double best = 0;
            for (int i = 0; i < 5; i++) {
                long t = System.nanoTime();
                MemorySegment.copy(from, 0, to, 0, bytes);
                best = Math.max(best, bytes / ((System.nanoTime() - t) / 1e9));
            }
            return best;
        }
    }

    /** Raw's read bandwidth against a memcpy of the same bytes (all in this run), and the loader's. */
    public static String rawReadTable(RawReadBench.Result r, double loaderBytesPerSecond, double bigMemcpy, int cores) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "raw read bandwidth, warm, %d clips of %s (best of 9 rounds, one thread unless said):%n",
                r.clips(), Bytes.human(r.clipBytes())));
        String line = "  %-52s %10s/s  %5.2fx memcpy%n";
        s.append(String.format(Locale.ROOT, line, "memcpy of the same bytes per clip",
                Bytes.human((long) r.memcpyBytesPerSecond()), 1.0));
        s.append(String.format(Locale.ROOT, line, "ClipReader, checksums on first read (default)",
                Bytes.human((long) r.firstReadBytesPerSecond()), r.firstReadBytesPerSecond() / r.memcpyBytesPerSecond()));
        s.append(String.format(Locale.ROOT, line, "ClipReader, checksums on every read",
                Bytes.human((long) r.everyReadBytesPerSecond()), r.everyReadBytesPerSecond() / r.memcpyBytesPerSecond()));
        s.append(String.format(Locale.ROOT, line, "ShardLoader raw warm row, batches, " + cores + " cores (*)",
                Bytes.human((long) loaderBytesPerSecond), loaderBytesPerSecond / r.memcpyBytesPerSecond()));
        s.append(String.format(Locale.ROOT, "  (*) measured earlier in this run, not interleaved with the memcpy; one 256 MiB"
                + " memcpy: %s/s%n", Bytes.human((long) bigMemcpy)));
        return s.toString();
    }

    public static String table(List<Row> rows) {
        StringBuilder s = new StringBuilder();
        double filesWarm = rows.getFirst().warm().samplesPerSecond();
        s.append(String.format(Locale.ROOT, "%-7s %12s %13s %13s %12s %9s%n", "format", "disk/clip", "warm samp/s",
                "cold samp/s", "CPU s/clip", "vs files"));
        for (Row r : rows) {
            s.append(String.format(Locale.ROOT, "%-7s %12s %13.1f %13.1f %12.4f %8.2fx%n", r.format(),
                    Bytes.human((long) r.diskBytesPerClip()), r.warm().samplesPerSecond(),
                    r.cold().samplesPerSecond(), r.warm().cpuSecondsPerClip(), r.warm().samplesPerSecond() / filesWarm));
        }
        return s.toString();
    }

    /** The rows, the memcpy figure and the raw-read figures into {@code node} (the command adds its settings). */
    public static void addJson(ObjectNode node, List<Row> rows, double memcpy, RawReadBench.Result rawRead,
                        double rawLoaderBytesPerSecond) {
        ArrayNode array = node.putArray("rows");
        for (Row r : rows) {
            ObjectNode row = array.addObject();
            row.put("format", r.format());
            row.put("disk_bytes", r.diskBytes());
            row.put("disk_bytes_per_clip", r.diskBytesPerClip());
            row.put("samples_per_second_warm", r.warm().samplesPerSecond());
            row.put("samples_per_second_cold", r.cold().samplesPerSecond());
            row.put("cpu_seconds_per_clip", r.warm().cpuSecondsPerClip());
            row.put("cpu_seconds_per_clip_cold", r.cold().cpuSecondsPerClip());
            row.put("speedup_vs_files_warm", r.warm().samplesPerSecond() / rows.getFirst().warm().samplesPerSecond());
            if (r.warm().prefetch() != null) {
                row.set("prefetch_warm", prefetchJson(r.warm().prefetch()));
                row.set("prefetch_cold", prefetchJson(r.cold().prefetch()));
            }
        }
        node.put("memcpy_bytes_per_second", memcpy);
        ObjectNode raw = node.putObject("raw_read");
        raw.put("clips", rawRead.clips());
        raw.put("clip_bytes", rawRead.clipBytes());
        raw.put("memcpy_same_bytes_per_second", rawRead.memcpyBytesPerSecond());
        raw.put("reader_first_read_bytes_per_second", rawRead.firstReadBytesPerSecond());
        raw.put("reader_every_read_bytes_per_second", rawRead.everyReadBytesPerSecond());
        raw.put("loader_warm_bytes_per_second", rawLoaderBytesPerSecond);
    }

    /** The read-ahead's counters as {@code --json} writes them (here and in {@code stoker bench}'s shard runs). */
    public static ObjectNode prefetchJson(PrefetchStats p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("hit_rate", p.hitRate());
        n.put("mean_occupancy", p.meanOccupancy());
        n.put("requests", p.requests());
        n.put("hits", p.hits());
        n.put("waits", p.waits());
        n.put("misses", p.misses());
        n.put("bytes_read", p.bytesRead());
        n.put("peak_held_bytes", p.peakHeldBytes());
        n.put("budget_bytes", p.budgetBytes());
        n.put("dropped", p.dropped());
        n.put("too_large", p.tooLarge());
        return n;
    }
}
