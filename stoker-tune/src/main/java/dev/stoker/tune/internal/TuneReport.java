package dev.stoker.tune.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.tune.TuneResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The tuner's report: one self-contained HTML file. A progress plot (samples/s per trial, the best so far
 * as a line, each known {@link Ceiling} dashed; Chart.js inlined, passed in by the caller), the
 * hypothesis tree (SVG: a node per trial under its parent, the kept path highlighted, failed trials
 * marked), the kept improvements and every trial in a table. The data is embedded as JSON too
 * ({@code <script id="stoker-tune" type="application/json">}).
 */
public final class TuneReport {
    private TuneReport() { }

    /**
     * @param ceilings   the ceilings known (headspace, machine decode), drawn dashed; may be empty
     * @param sideBySide the start, default and best configs measured side by side after the search, or null
     * @param chartJs    Chart.js (UMD build) source, inlined
     */
    public static void write(Path file, TuneResult result, List<Ceiling> ceilings, SideBySide sideBySide, String chartJs) {
        try {
            Files.writeString(file, html(result, ceilings, sideBySide, chartJs));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static String html(TuneResult r, List<Ceiling> ceilings, SideBySide sideBySide, String chartJs) {
        ObjectNode data = TunerJournal.JSON.createObjectNode();
        ArrayNode trials = data.putArray("trials");
        for (Experiment e : r.experiments()) {
            ObjectNode t = trials.addObject();
            t.put("trial", e.trial());
            t.put("sps", e.samplesPerSecond());
            t.put("best", e.bestSoFar());
            t.put("kept", e.kept());
            t.put("status", e.status().toString());
            t.put("change", e.change() == null ? "" : e.change());
        }
        ArrayNode lines = data.putArray("ceilings");
        for (Ceiling c : ceilings) {
            lines.addObject().put("name", c.name()).put("sps", c.samplesPerSecond());
        }
        String embedded;
        try {
            embedded = TunerJournal.JSON.writeValueAsString(data).replace("<", "\\u003c");
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder h = new StringBuilder();
        h.append("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>stoker tune</title>\n<style>")
                .append("body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}")
                .append("table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}")
                .append("td.n{text-align:right}tr.kept{background:#e8f6e8}tr.failed{background:#fbe9e9}.muted{color:#777}")
                .append("#chart{max-width:900px;max-height:360px}</style>\n");
        h.append("<script>\n").append(chartJs.replaceAll("(?i)</script", "<\\\\/script").replaceAll("//# sourceMappingURL=\\S+", ""))
                .append("\n</script>\n</head><body>\n");
        Experiment best = r.best();
        h.append("<h1>stoker tune</h1>\n<p>");
        String noise = Double.isNaN(r.noise()) ? "unknown" : String.format(Locale.ROOT, "%.1f%%", r.noise() * 100);
        if (r.bestIsStart()) {
            // One config, one figure: a ratio of it to itself would read as a change.
            h.append(String.format(Locale.ROOT, "Best: the start config, <b>%s samples/s</b> (trial %d; mean of its runs;"
                    + " noise of one run σ %s): nothing beat it above the noise.", rate(r.bestMean()), best.trial(), noise));
        } else {
            h.append(String.format(Locale.ROOT, "Best: <b>%s samples/s</b> (trial %d; mean of its runs), start config %s"
                    + " samples/s (mean of its runs; noise of one run σ %s): <b>%.2fx</b>.", rate(r.bestMean()), best.trial(),
                    rate(r.startMean()), noise, r.speedup()));
        }
        if (sideBySide != null) {
            h.append(" Measured side by side after the search: see below.");
        }
        for (Ceiling c : ceilings) {
            h.append(String.format(Locale.ROOT, " %s: %s samples/s (%s); the start config runs at %.2f of it, the best"
                            + " at %.2f.", capitalised(c.name()), rate(c.samplesPerSecond()), esc(c.how()),
                    c.shareOf(r.startMean()), c.shareOf(r.bestMean())));
        }
        h.append(" ").append(r.experiments().size()).append(" trials; stopped: ").append(esc(r.stopReason())).append(".</p>\n");
        h.append("<h2>Progress</h2>\n<canvas id=\"chart\"></canvas>\n");
        if (sideBySide != null) {
            h.append(sideBySideTable(sideBySide));
        }
        h.append("<h2>Hypothesis tree</h2>\n<p class=\"muted\">Each trial under the trial it changed; green: kept "
                + "(the path to the best is bold), grey: tried and backed off, red: failed.</p>\n").append(tree(r));
        h.append("<h2>Kept improvements</h2>\n<table><tr><th>trial</th><th>change</th><th>samples/s</th><th>gain</th><th>hypothesis</th></tr>\n");
        Map<Integer, Experiment> byTrial = new HashMap<>();
        r.experiments().forEach(e -> byTrial.put(e.trial(), e));
        for (Experiment e : r.experiments()) {
            if (!e.kept()) {
                continue;
            }
            Experiment parent = byTrial.get(e.parent());
            String gain = parent == null || parent.samplesPerSecond() <= 0 ? "" : String.format(Locale.ROOT, "%+.0f%%",
                    (e.samplesPerSecond() / parent.samplesPerSecond() - 1) * 100);
            h.append("<tr><td class=n>").append(e.trial()).append("</td><td>").append(esc(e.change() == null ? "start" : e.change()))
                    .append("</td><td class=n>").append(rate(e.samplesPerSecond())).append("</td><td class=n>").append(gain)
                    .append("</td><td>").append(esc(e.hypothesis())).append("</td></tr>\n");
        }
        h.append("</table>\n<h2>Best options</h2>\n<pre>").append(esc(r.bestOptions().toJson())).append("</pre>\n");
        h.append("<h2>Every trial</h2>\n<p class=\"muted\">cpu: cores the trial used; others: cores the rest of the machine used"
                + " meanwhile (a trial that shared a loaded machine).</p>\n<table><tr><th>trial</th><th>parent</th><th>phase</th>"
                + "<th>change</th><th>samples/s</th><th>cpu</th><th>others</th><th>status</th><th>bottleneck</th><th>hypothesis</th></tr>\n");
        for (Experiment e : r.experiments()) {
            String cls = e.kept() ? "kept" : e.ok() ? "" : "failed";
            h.append("<tr class=\"").append(cls).append("\"><td class=n>").append(e.trial()).append("</td><td class=n>")
                    .append(e.parent() < 0 ? "" : e.parent()).append("</td><td>").append(e.phase()).append("</td><td>")
                    .append(esc(e.change() == null ? "" : e.change())).append("</td><td class=n>")
                    .append(e.ok() ? rate(e.samplesPerSecond()) : "-").append("</td><td class=n>")
                    .append(cores(e.metrics() == null ? null : e.metrics().cpuCores())).append("</td><td class=n>")
                    .append(cores(e.metrics() == null ? null : e.metrics().otherCores())).append("</td><td>").append(e.status())
                    .append(e.message() == null ? "" : ": " + esc(e.message())).append("</td><td>")
                    .append(e.metrics() == null ? "" : esc(e.metrics().verdict())).append("</td><td>")
                    .append(esc(e.hypothesis())).append("</td></tr>\n");
        }
        h.append("</table>\n");
        h.append("<script id=\"stoker-tune\" type=\"application/json\">").append(embedded).append("</script>\n");
        h.append("""
                <script>
                const d = JSON.parse(document.getElementById('stoker-tune').textContent);
                const t = d.trials;
                const sets = [
                  {type: 'line', label: 'best so far', data: t.map(x => ({x: x.trial, y: x.best})), stepped: true,
                   borderColor: '#2a7', pointRadius: 0, borderWidth: 2},
                  {type: 'scatter', label: 'trial', data: t.map(x => ({x: x.trial, y: x.sps, change: x.change, status: x.status})),
                   pointBackgroundColor: t.map(x => x.status !== 'ok' ? '#d33' : x.kept ? '#2a7' : '#999'),
                   pointStyle: t.map(x => x.status !== 'ok' ? 'crossRot' : 'circle'), pointRadius: 5}];
                const colours = ['#36c', '#c63', '#93c'];
                d.ceilings.forEach((c, i) => sets.push({type: 'line', label: c.name, data: t.map(x => ({x: x.trial, y: c.sps})),
                    borderDash: [6, 4], borderColor: colours[i % colours.length], pointRadius: 0}));
                new Chart(document.getElementById('chart'), {data: {datasets: sets}, options: {animation: false,
                  scales: {x: {type: 'linear', title: {display: true, text: 'trial'}, ticks: {stepSize: 1}},
                           y: {beginAtZero: true, title: {display: true, text: 'samples/s'}}},
                  plugins: {tooltip: {callbacks: {label: c => (c.raw.change ? c.raw.change + ': ' : '') + c.raw.y.toFixed(1) + ' samples/s'
                      + (c.raw.status && c.raw.status !== 'ok' ? ' (' + c.raw.status + ')' : '')}}}}});
                </script>
                </body></html>
                """);
        return h.toString();
    }

    /** The hypothesis tree as SVG: a row per trial, indented by depth, an elbow from its parent. */
    static String tree(TuneResult r) {
        List<Experiment> all = r.experiments();
        Map<Integer, Integer> depth = new HashMap<>();
        Map<Integer, Integer> row = new HashMap<>();
        Map<Integer, Experiment> byTrial = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            Experiment e = all.get(i);
            byTrial.put(e.trial(), e);
            depth.put(e.trial(), e.parent() < 0 ? 0 : depth.getOrDefault(e.parent(), 0) + 1);
            row.put(e.trial(), i);
        }
        Set<Integer> bestPath = new HashSet<>();
        for (Experiment e = r.best(); e != null; e = byTrial.get(e.parent())) {
            bestPath.add(e.trial());
        }
        int rowHeight = 22;
        int indent = 22;
        int maxDepth = depth.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        int width = 40 + indent * maxDepth + 760;
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"")
                .append(all.size() * rowHeight + 10).append("\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n");
        for (Experiment e : all) {
            int x = 12 + indent * depth.get(e.trial());
            int y = 12 + rowHeight * row.get(e.trial());
            Experiment parent = byTrial.get(e.parent());
            if (parent != null) {
                int px = 12 + indent * depth.get(parent.trial());
                int py = 12 + rowHeight * row.get(parent.trial());
                boolean onPath = bestPath.contains(e.trial()) && bestPath.contains(parent.trial());
                s.append(String.format(Locale.ROOT, "<path d=\"M%d %d V%d H%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
                        px, py, y, x, onPath ? "#2a7" : "#bbb", onPath ? 3 : 1));
            }
            String fill = !e.ok() ? "#d33" : e.kept() ? "#2a7" : "#aaa";
            s.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"6\" fill=\"%s\"%s/>\n", x, y, fill,
                    bestPath.contains(e.trial()) ? " stroke=\"#064\" stroke-width=\"2\"" : ""));
            if (!e.ok()) {
                s.append(String.format(Locale.ROOT, "<path d=\"M%d %d l6 6 M%d %d l-6 6\" stroke=\"#fff\" stroke-width=\"2\"/>\n",
                        x - 3, y - 3, x + 3, y - 3));
            }
            String label = String.format(Locale.ROOT, "#%d %s — %s%s", e.trial(), e.change() == null ? "start" : e.change(),
                    e.ok() ? rate(e.samplesPerSecond()) + " samples/s" : e.status(), e.kept() && e.parent() >= 0 ? " (kept)" : "");
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\"%s><title>%s</title>%s</text>\n", x + 12, y + 4,
                    bestPath.contains(e.trial()) ? " font-weight=\"bold\"" : "", esc(e.hypothesis()), esc(label)));
        }
        return s.append("</svg>\n").toString();
    }

    private static String cores(Double c) {
        return c == null ? "" : String.format(Locale.ROOT, "%.2f", c);
    }

    /** The side-by-side runs: each config's runs, mean and spread, and its ratio to the start and the default. */
    static String sideBySideTable(SideBySide s) {
        StringBuilder h = new StringBuilder("<h2>Side by side</h2>\n<p class=\"muted\">Each config ran once per round, the"
                + " order rotating from round to round; ratios are taken round by round (geometric mean, and the range over"
                + " the rounds).</p>\n<table><tr><th>config</th><th>samples/s per round</th><th>mean</th><th>σ</th>");
        boolean hasStart = s.entries().stream().anyMatch(e -> e.name().equals("start"));
        boolean hasDefault = s.entries().stream().anyMatch(e -> e.name().equals("default"));
        if (hasStart) {
            h.append("<th>vs start</th>");
        }
        if (hasDefault) {
            h.append("<th>vs default</th>");
        }
        h.append("</tr>\n");
        for (SideBySide.Entry e : s.entries()) {
            h.append("<tr><td>").append(esc(e.name())).append("</td><td>").append(e.samplesPerSecond().stream()
                            .map(x -> x.isNaN() ? "failed" : rate(x)).collect(java.util.stream.Collectors.joining(", ")))
                    .append("</td><td class=n>").append(Double.isNaN(e.mean()) ? "-" : rate(e.mean()))
                    .append("</td><td class=n>").append(Double.isNaN(e.relativeSd()) ? "-"
                            : String.format(Locale.ROOT, "%.1f%%", e.relativeSd() * 100)).append("</td>");
            if (hasStart) {
                h.append("<td>").append(e.name().equals("start") ? "" : esc(s.ratio(e.name(), "start").toString())).append("</td>");
            }
            if (hasDefault) {
                h.append("<td>").append(e.name().equals("default") ? "" : esc(s.ratio(e.name(), "default").toString())).append("</td>");
            }
            h.append("</tr>\n");
        }
        return h.append("</table>\n").toString();
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Formats a throughput for messages. */
    public static String rate(double samplesPerSecond) {
        return String.format(Locale.ROOT, samplesPerSecond >= 100 ? "%.0f" : "%.1f", samplesPerSecond);
    }
}
