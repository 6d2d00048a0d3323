package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code stoker demo}: runs for the time asked, prints live and final stats, writes stats, trace and config. */
@Timeout(20)
class DemoCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void writesFinalStatsWithEveryStageAndAVerdictAndATraceOfEveryStage() throws IOException {
        Path stats = dir.resolve("stats.json");
        Path trace = dir.resolve("demo.trace.json");

        CliRun run = CliRun.stoker("demo", "--seconds", "2", "--json", stats.toString(), "--trace", trace.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();

        JsonNode json = JSON.readTree(stats.toFile());
        List<String> stages = new ArrayList<>();
        json.get("stages").forEach(s -> stages.add(s.get("name").asText()));
        assertThat(stages).containsExactlyElementsOf(withSource(DemoWorkload.STAGES));
        assertThat(json.at("/verdict/line").asText()).startsWith("bottleneck: ").doesNotContain("warming up");
        assertThat(json.at("/sink/delivered").asLong()).isPositive();

        Set<String> traced = new HashSet<>();
        JsonNode events = JSON.readTree(trace.toFile()).get("traceEvents");
        assertThat(events.isArray()).isTrue();
        events.forEach(e -> traced.add(e.get("name").asText()));
        assertThat(traced).containsAll(withSource(DemoWorkload.STAGES));

        // Not a terminal: plain periodic blocks, then the final table and the verdict.
        assertThat(run.out()).contains("samples/s now", "final stats after", json.at("/verdict/line").asText(),
                "wrote stats to " + stats, "wrote trace to " + trace);
        assertThat(run.out()).doesNotContain("\033[");

        // The pipeline and the live view stopped their threads before the command returned.
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.startsWith("stoker-"));
    }

    @Test
    void aSavedConfigFedBackChangesTheStage() throws IOException {
        Path saved = dir.resolve("saved.json");
        CliRun first = CliRun.stoker("demo", "--seconds", "1", "--save-config", saved.toString());
        assertThat(first.exitCode()).as(first.err()).isZero();

        ObjectNode config = (ObjectNode) JSON.readTree(saved.toFile());
        assertThat(config.at("/stages/decode/concurrency").asInt()).isEqualTo(DemoWorkload.DECODE_WORKERS);
        ((ObjectNode) config.at("/stages/decode")).put("concurrency", 3);
        Path edited = dir.resolve("edited.json");
        JSON.writeValue(edited.toFile(), config);

        Path stats = dir.resolve("stats.json");
        CliRun second = CliRun.stoker("demo", "--seconds", "1", "--config", edited.toString(), "--json", stats.toString());
        assertThat(second.exitCode()).as(second.err()).isZero();

        JsonNode decode = null;
        for (JsonNode stage : JSON.readTree(stats.toFile()).get("stages")) {
            if (stage.get("name").asText().equals("decode")) {
                decode = stage;
            }
        }
        assertThat(decode).isNotNull();
        assertThat(decode.get("concurrency").asInt()).isEqualTo(3);
    }

    @Test
    void aConfigNamingAnUnknownStageFailsOnOneLine() throws IOException {
        Path config = dir.resolve("bad.json");
        JSON.writeValue(config.toFile(), JSON.readTree("{\"stages\": {\"resize\": {\"concurrency\": 2}}}"));

        CliRun run = CliRun.stoker("demo", "--seconds", "1", "--config", config.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).singleElement().asString().startsWith("stoker demo: ").contains("resize");
    }

    private static List<String> withSource(List<String> stages) {
        List<String> all = new ArrayList<>(List.of("source"));
        all.addAll(stages);
        return all;
    }
}
