package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.observe.internal.DashboardAssets;
import dev.stoker.observe.internal.DashboardServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code stoker bench --dashboard / --publish / --report}: what a run shows of itself besides its table. */
class BenchObservabilityTest {
    @TempDir
    Path dir;

    @Test
    void benchServesItsDashboardPublishesItsStatsAndWritesASelfContainedReport() throws Exception {
        Path data = dir.resolve("tiny");
        CliRun.demoData(data, 2, 2, 1);
        Path report = dir.resolve("bench.html");

        CliRun run = CliRun.stoker("bench", data.toString(), "--batches", "6", "--batch", "2", "--frames", "4",
                "--no-reference", "--dashboard", "0", "--publish", "0", "--report", report.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("dashboard: http://localhost:\\d+/ \\(while the bench runs\\)")
                .containsPattern("publishing stats on localhost:\\d+ \\(watch with: stoker monitor localhost:\\d+\\)")
                .contains("wrote report to " + report);

        String html = Files.readString(report);
        // Self-contained: nothing fetched from anywhere, Chart.js inlined from its WebJar.
        assertThat(html).doesNotContainPattern("<script[^>]+src=").doesNotContain("<link rel=\"stylesheet\"")
                .contains("Chart.js v" + DashboardAssets.chartJsVersion());
        Matcher embedded = Pattern.compile("<script id=\"stoker-report\" type=\"application/json\">(.*?)</script>",
                Pattern.DOTALL).matcher(html);
        assertThat(embedded.find()).isTrue();
        JsonNode reportData = new ObjectMapper().readTree(embedded.group(1));
        assertThat(reportData.at("/result/samples_per_second").asDouble()).isPositive();
        assertThat(reportData.at("/result/batches").asLong()).isEqualTo(6);
        JsonNode series = reportData.get("series");
        assertThat(series.size()).isGreaterThanOrEqualTo(1);   // a short run: at least the snapshot at its end
        JsonNode last = series.get(series.size() - 1);
        assertThat(last.get("type").asText()).isEqualTo("stats");
        assertThat(last.get("samples").asLong()).isEqualTo(12);
        List<String> stages = new ArrayList<>();
        last.at("/stats/stages").forEach(s -> stages.add(s.get("name").asText()));
        assertThat(stages).contains("fetch", "decode", "collate");
        assertThat(last.at("/process/pid").asLong()).isEqualTo(ProcessHandle.current().pid());

        // Everything the run started has stopped.
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.startsWith("stoker-stats-publisher") || name.startsWith("stoker-bench-watch")
                        || name.startsWith("stoker-dashboard"));
    }

    @Test
    void dashboardTakesAnOptionalPortBeforeTheDataset() {
        BenchCommand withoutPort = new BenchCommand();
        new CommandLine(withoutPort).parseArgs("--dashboard", "data/train");
        assertThat(withoutPort.dashboardPort).isEqualTo(DashboardServer.DEFAULT_PORT);
        assertThat(withoutPort.loader.dataset).isEqualTo("data/train");

        BenchCommand withPort = new BenchCommand();
        new CommandLine(withPort).parseArgs("--dashboard", "0", "data/train");
        assertThat(withPort.dashboardPort).isZero();

        BenchCommand without = new BenchCommand();
        new CommandLine(without).parseArgs("data/train");
        assertThat(without.dashboardPort).isNull();
        assertThat(without.publishPort).isNull();
    }
}
