package dev.stoker.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.observe.internal.BenchReportWriter;
import dev.stoker.observe.internal.DashboardAssets;
import dev.stoker.observe.internal.TrainReportWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The HTML reports embed a command's {@code --json} result as it is, in pages that open offline: Chart.js and the
 * dashboard's files inlined, and nothing in the data or the scripts able to end a script element early.
 */
class ReportWritersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A value a result may well hold (a path, a failure's reason) that would end a script element if left as is. */
    private static final String HOSTILE = "clips/</script><img src=x>.mkv";

    @Test
    void theBenchReportIsTheDashboardPageWithTheResultAndSeriesEmbedded() throws Exception {
        ObjectNode result = JSON.createObjectNode().put("dataset", HOSTILE).put("samples_per_second", 123.5);
        ObjectNode snapshot = JSON.createObjectNode().put("type", "stats").put("samples", 8);
        String html = BenchReportWriter.html(result, List.of(snapshot, snapshot.deepCopy().put("samples", 16)));

        assertThat(html).doesNotContainPattern("<script[^>]+src=").doesNotContain("<link rel=\"stylesheet\"")
                .contains("Chart.js v" + DashboardAssets.chartJsVersion(), "<style>");
        JsonNode embedded = JSON.readTree(scriptBody(html, "stoker-report"));
        assertThat(embedded.get("result")).isEqualTo(result);
        assertThat(embedded.get("series")).extracting(s -> s.get("samples").asLong()).containsExactly(8L, 16L);
        assertThat(scriptElementsOpened(html)).isEqualTo(count(html, "</script>"));
    }

    @Test
    void theTrainReportEmbedsItsResult() throws Exception {
        ObjectNode result = JSON.createObjectNode().put("dataset", HOSTILE).put("model", "r3d");
        String html = TrainReportWriter.html(result);

        assertThat(html).doesNotContainPattern("<script[^>]+src=").contains("Chart.js v" + DashboardAssets.chartJsVersion());
        assertThat(JSON.readTree(scriptBody(html, "stoker-train"))).isEqualTo(result);
        assertThat(scriptElementsOpened(html)).isEqualTo(count(html, "</script>"));
    }

    private static String scriptBody(String html, String id) {
        Matcher m = Pattern.compile("<script id=\"" + id + "\" type=\"application/json\">(.*?)</script>", Pattern.DOTALL)
                .matcher(html);
        assertThat(m.find()).as("the embedded %s data", id).isTrue();
        return m.group(1);
    }

    private static int scriptElementsOpened(String html) {
        return count(html, "<script>") + count(html, "<script id=");
    }

    private static int count(String text, String what) {
        return text.split(Pattern.quote(what), -1).length - 1;
    }
}
