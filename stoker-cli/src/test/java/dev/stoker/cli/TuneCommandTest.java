package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.PipelineConfig;
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
        assertThat(CliRun.stoker("demo-data", data.toString(), "--classes", "2", "--clips", "2", "--seconds", "1").exitCode()).isZero();
        Path out = dir.resolve("tune");
        String[] common = {"tune", data.toString(), "--out", out.toString(), "--repeats", "1", "--batches", "2",
                "--bench-arg=--batch=2", "--bench-arg=--frames=4"};

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
        PipelineConfig best = PipelineConfig.read(out.resolve("best.json"));
        assertThat(best.stages()).containsKey("decode");
        assertThat(Files.readString(out.resolve("report.html"))).contains("<html").contains("Chart");

        CliRun resumed = CliRun.stoker(concat(common, "--trials", "3"));
        assertThat(resumed.exitCode()).as(resumed.err()).isZero();
        assertThat(Files.readAllLines(out.resolve("experiments.jsonl"))).hasSize(3)
                .startsWith(trials.toArray(String[]::new));
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
