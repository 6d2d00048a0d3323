package dev.stoker.observe.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code stoker bench --report FILE}: one self-contained HTML file, the dashboard's page in report mode.
 * Styles, Chart.js (from its WebJar) and the page's script are inlined; the data is embedded as JSON
 * ({@code <script id="stoker-report" type="application/json">}: {@code {"result": <the --json result>,
 * "series": [<stats snapshot>, ...]}}). It opens offline, from a file, years later.
 */
public final class BenchReportWriter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SCRIPT_END = Pattern.compile("</(script)", Pattern.CASE_INSENSITIVE);

    private BenchReportWriter() { }

    public static void write(Path file, JsonNode result, List<? extends JsonNode> series) throws IOException {
        Files.writeString(file, html(result, series));
    }

    public static String html(JsonNode result, List<? extends JsonNode> series) throws JsonProcessingException {
        ObjectNode data = JSON.createObjectNode();
        data.set("result", result);
        data.putArray("series").addAll(List.copyOf(series));
        // '<' only occurs inside JSON strings, where \u003c means the same: nothing can end the script element.
        String embedded = JSON.writeValueAsString(data).replace("<", "\\u003c");

        String page = DashboardAssets.text(DashboardAssets.PAGE);
        page = replaceOnce(page, "<link rel=\"stylesheet\" href=\"dashboard.css\">",
                "<style>\n" + DashboardAssets.text(DashboardAssets.STYLES) + "</style>");
        page = replaceOnce(page, "<script src=\"vendor/chart.umd.min.js\"></script>",
                "<script>\n" + inlineScript(DashboardAssets.text(DashboardAssets.CHART_JS)) + "\n</script>");
        page = replaceOnce(page, "<script src=\"dashboard.js\"></script>",
                "<script id=\"stoker-report\" type=\"application/json\">" + embedded + "</script>\n"
                        + "<script>\n" + inlineScript(DashboardAssets.text(DashboardAssets.SCRIPT)) + "</script>");
        return page;
    }

    /** JavaScript made safe inside a script element: a literal {@code </script} would end it early. */
    static String inlineScript(String js) {
        return SCRIPT_END.matcher(js).replaceAll(Matcher.quoteReplacement("<\\/") + "$1")
                .replaceAll("//# sourceMappingURL=\\S+", "");
    }

    private static String replaceOnce(String page, String tag, String replacement) {
        int at = page.indexOf(tag);
        if (at < 0 || page.indexOf(tag, at + 1) >= 0) {
            throw new IllegalStateException("report: the dashboard page should hold " + tag + " exactly once");
        }
        return page.substring(0, at) + replacement + page.substring(at + tag.length());
    }
}
