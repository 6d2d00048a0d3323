package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** stoker tune end to end on a tiny dataset: real bench trials in child processes, outputs, resume. */
class TuneCommandTest {

    @Test
    void writesExperimentsBestConfigAndReportAndContinuesWhereItStopped(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny");
        CliRun.demoData(data, 2, 2, 1);
        Path out = dir.resolve("tune");
        String[] common = {"tune", data.toString(), "--out", out.toString(), "--repeats", "1", "--batches", "2",
                "--batch", "2", "--frames", "4"};

        CliRun first = CliRun.stoker(concat(common, "--trials", "2"));
        assertThat(first.exitCode()).as(first.err()).isZero();
        List<String> trials = Files.readAllLines(out.resolve("experiments.jsonl"));
        assertThat(trials).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        JsonNode start = json.readTree(trials.get(0));
        JsonNode second = json.readTree(trials.get(1));
        assertThat(start.get("parent").asInt()).isEqualTo(-1);
        assertThat(second.get("parent").asInt()).isEqualTo(0);
        assertThat(second.get("hypothesis").asText()).isNotBlank();
        assertThat(start.get("metrics").get("samples_per_second").asDouble()).isPositive();
        LoaderOptions best = LoaderOptions.read(out.resolve("best.json"));
        assertThat(best.config().stages()).as("the effective settings, spelled out").containsKey("decode");
        assertThat(best.clip().frames()).as("the start's loader flags are in it: bench --config reads it").isEqualTo(4);
        assertThat(best.batch().size()).isEqualTo(2);
        assertThat(Files.readString(out.resolve("report.html"))).contains("<html").contains("Chart");
        // The decode ceiling, measured once before the search: every core decoding the run's clips at once.
        JsonNode ceiling = json.readTree(out.resolve("decode-ceiling.json").toFile());
        assertThat(ceiling.get("samples_per_second").asDouble()).isPositive();
        assertThat(ceiling.get("threads").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(first.out()).contains("measuring the machine's decode ceiling", "decode ceiling: ")
                .containsPattern("decode ceiling: [0-9.]+ samples/s; the start config runs at [0-9.]+ of it, the best at");
        assertThat(Files.readString(out.resolve("report.html"))).contains("Decode ceiling: ", "\"name\":\"decode ceiling\"");

        CliRun resumed = CliRun.stoker(concat(common, "--trials", "3"));
        assertThat(resumed.exitCode()).as(resumed.err()).isZero();
        assertThat(resumed.out()).as("a continued search reads the ceiling it measured").doesNotContain("measuring the machine's")
                .contains("decode ceiling: ");
        assertThat(Files.readAllLines(out.resolve("experiments.jsonl"))).hasSize(3)
                .startsWith(trials.toArray(String[]::new));
    }

    @Test
    void startAllAndCompareDefaultRunStartDefaultAndBestSideBySide(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny");
        CliRun.demoData(data, 2, 2, 1);
        Path out = dir.resolve("tune");
        CliRun run = CliRun.stoker("tune", data.toString(), "--out", out.toString(), "--start-all", "2", "--compare-default",
                "--no-decode-ceiling",
                "--trials", "2", "--repeats", "2", "--batches", "2", "--batch", "2", "--frames", "4");
        assertThat(run.exitCode()).as(run.err()).isZero();
        ObjectMapper json = new ObjectMapper();
        JsonNode start = json.readTree(Files.readAllLines(out.resolve("experiments.jsonl")).getFirst());
        for (String stage : List.of("fetch", "demux", "decode", "convert", "collate")) {
            assertThat(start.at("/options/config/stages/" + stage + "/concurrency").asInt()).as(stage).isEqualTo(2);
        }
        JsonNode compared = json.readTree(out.resolve("side-by-side.json").toFile());
        assertThat(compared.get("entries")).hasSize(3);
        compared.get("entries").forEach(e -> assertThat(e.get("samples_per_second")).hasSize(2));
        assertThat(List.of(compared.at("/entries/0/name").asText(), compared.at("/entries/1/name").asText(),
                compared.at("/entries/2/name").asText())).containsExactly("start", "default", "best");
        assertThat(run.out()).contains("side by side: best", "vs start", "vs default");
        assertThat(Files.readString(out.resolve("report.html"))).contains("Side by side", "vs default");
        assertThat(out.resolve("decode-ceiling.json")).doesNotExist();

        CliRun both = CliRun.stoker("tune", data.toString(), "--out", dir.resolve("x").toString(), "--start-all", "2",
                "--config", out.resolve("best.json").toString());
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("--start-all 2 (expected: 1+, and no --config)");
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
