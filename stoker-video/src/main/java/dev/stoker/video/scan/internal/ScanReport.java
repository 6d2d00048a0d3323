package dev.stoker.video.scan.internal;

import dev.stoker.video.FailureReason;
import dev.stoker.video.internal.ProbeResult;
import dev.stoker.video.loader.Quarantine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link DatasetScan} found: every file's {@link ProbeResult} in dataset order, grouped by
 * {@link FailureReason} for the table people read and the JSON scripts read.
 *
 * @param results     one per file, in dataset order
 * @param workers     threads the scan ran on
 * @param elapsedNanos how long it took
 */
public record ScanReport(List<ProbeResult> results, int workers, long elapsedNanos) {
    /** The stage a scan's entries carry in a quarantine file (the loader's carry the stage that failed). */
    public static final String STAGE = "scan";

    public ScanReport {
        results = List.copyOf(results);
    }

    /** The files that failed, by reason in the taxonomy's order. */
    public Map<FailureReason, List<ProbeResult>> failuresByReason() {
        Map<FailureReason, List<ProbeResult>> by = new EnumMap<>(FailureReason.class);
        for (ProbeResult r : results) {
            if (!r.ok()) {
                by.computeIfAbsent(r.reason(), k -> new ArrayList<>()).add(r);
            }
        }
        return by;
    }

    /** Files that failed. */
    public List<ProbeResult> failed() {
        return results.stream().filter(r -> !r.ok()).toList();
    }

    /**
     * Adds every file whose failure is a property of the file ({@link FailureReason#fileFault()}) to
     * {@code quarantine} (appended to its file, if it has one), so that a loader given it skips them from the start;
     * a transient failure (a missing file, an I/O error) is left out. Returns how many were new to it.
     */
    public int quarantineInto(Quarantine quarantine) {
        int added = 0;
        for (ProbeResult r : results) {
            if (!r.ok() && r.reason().fileFault() && quarantine.add(Path.of(r.path()), STAGE, r.reason().code())) {
                added++;
            }
        }
        return added;
    }

    /**
     * The summary line and a table of reasons, each with its count, what it means and the files under it, e.g.
     * <pre>
     * scanned 28 videos in 2.1 s on 2 workers: 23 ok, 5 failed
     *
     * reason           videos  meaning
     * truncated             2  the file ends early (a file fault)
     *   damaged/cut.mp4  open: moov atom not found
     * </pre>
     * Paths under {@code root} (nullable) are shown relative to it.
     */
    public String toTable(Path root) {
        StringBuilder out = new StringBuilder();
        int failed = failed().size();
        out.append(String.format(Locale.ROOT, "scanned %d videos in %.1f s on %d worker%s: %d ok, %d failed%n",
                results.size(), elapsedNanos / 1e9, workers, workers == 1 ? "" : "s", results.size() - failed, failed));
        if (failed == 0) {
            return out.toString();
        }
        Map<FailureReason, List<ProbeResult>> by = failuresByReason();
        int reasonWidth = Math.max("reason".length(), by.keySet().stream().mapToInt(r -> r.code().length()).max().orElse(0));
        out.append(String.format(Locale.ROOT, "%n%-" + reasonWidth + "s  %6s  %s%n", "reason", "videos", "meaning"));
        for (Map.Entry<FailureReason, List<ProbeResult>> e : by.entrySet()) {
            FailureReason reason = e.getKey();
            out.append(String.format(Locale.ROOT, "%-" + reasonWidth + "s  %6d  %s%s%n", reason.code(), e.getValue().size(),
                    reason.description(), reason.fileFault() ? " (a file fault)" : " (may pass on a retry)"));
            for (ProbeResult r : e.getValue()) {
                out.append("  ").append(shown(root, r.path())).append("  ").append(r.operation()).append(": ")
                        .append(r.detail()).append('\n');
            }
        }
        return out.toString();
    }

    /** The report as a JSON-ready map: totals, counts by reason, and every file's result. */
    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("videos", results.size());
        json.put("ok", results.size() - failed().size());
        json.put("failed", failed().size());
        json.put("seconds", elapsedNanos / 1e9);
        json.put("workers", workers);
        Map<String, Integer> byReason = new LinkedHashMap<>();
        failuresByReason().forEach((reason, files) -> byReason.put(reason.code(), files.size()));
        json.put("failures_by_reason", byReason);
        List<Map<String, Object>> files = new ArrayList<>();
        for (ProbeResult r : results) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("path", r.path());
            f.put("size_bytes", r.sizeBytes());
            f.put("ok", r.ok());
            if (!r.ok()) {
                f.put("reason", r.reason().code());
                f.put("file_fault", r.reason().fileFault());
                f.put("operation", r.operation());
                f.put("detail", r.detail());
            }
            f.put("container", r.container());
            f.put("codec", r.codec());
            f.put("width", r.width());
            f.put("height", r.height());
            f.put("duration_seconds", r.durationSeconds());
            f.put("frame_count", r.frameCount());
            f.put("first_gop_frames", r.firstGopFrames());
            f.put("probe_millis", r.probeNanos() / 1e6);
            files.add(f);
        }
        json.put("files", files);
        return json;
    }

    private static String shown(Path root, String path) {
        if (root != null) {
            Path p = Path.of(path);
            Path base = root.toAbsolutePath().normalize();
            Path abs = p.toAbsolutePath().normalize();
            if (abs.startsWith(base) && !abs.equals(base)) {
                return base.relativize(abs).toString();
            }
        }
        return path;
    }
}
