package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.PipelineConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code stoker bench --autotune}: tunes the running loader, prints what it changed, saves and reports the tuned config. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BenchAutotuneTest {
    @TempDir
    static Path dir;
    static final Path data = CliRun.sharedDemoData(2, 3, 2);

    @Test
    void benchAutotunePrintsItsChangesAndSavesTheTunedConfig() throws IOException {
        Path saved = dir.resolve("tuned.json");
        Path json = dir.resolve("bench.json");
        CliRun run = CliRun.stoker("bench", data.toString(), "--autotune", "--autotune-window", "150", "--autotune-ram", "1G",
                "--concurrency", "decode=1", "--concurrency", "demux=3", "--batches", "400", "--batch", "2", "--frames", "4",
                "--no-reference", "--save-config", saved.toString(), "--json", json.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        System.out.println(run.out());
        assertThat(run.out()).contains("autotune: on, within", "autotune: final config", "autotune: saved the final config to " + saved);
        List<String> changeLines = run.out().lines().filter(l -> l.matches("\\s+\\d+\\.\\d+s (probe|kept|reverted|budget) .*")).toList();
        assertThat(changeLines).as("the changes it printed").isNotEmpty();

        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("batches").asLong()).isEqualTo(400);
        LoaderOptions savedOptions = LoaderOptions.read(saved);
        assertThat(savedOptions.clip().frames()).as("the options travel with the config").isEqualTo(4);
        assertThat(savedOptions.batch().size()).isEqualTo(2);
        PipelineConfig tuned = savedOptions.config();
        assertThat(tuned).as("--save-config holds the config the run ended with").isEqualTo(PipelineConfig.fromJson(result.get("config").toString()));
        List<String> reasons = new ArrayList<>();
        result.at("/stats/reconfigurations").forEach(r -> reasons.add(r.get("reason").asText()));
        long applied = changeLines.stream().filter(l -> !l.contains(" kept ")).count();
        assertThat(reasons).as("every change the tuner made is in the stats, with its reason").hasSize((int) applied)
                .allMatch(r -> r.startsWith("autotune "));
        result.at("/stats/stages").forEach(s -> {
            if (tuned.stages().containsKey(s.get("name").asText())) {
                assertThat(s.get("concurrency").asInt()).isEqualTo(tuned.stage(s.get("name").asText()).concurrency());
            }
        });
    }

    @Test
    void autotuneWithAShardFolderIsAUsageErrorSayingWhy() throws IOException {
        Path shards = Files.createDirectories(dir.resolve("shards"));
        Files.writeString(shards.resolve("stoker-shards.json"), "{}");
        CliRun run = CliRun.stoker("bench", shards.toString(), "--autotune", "--batches", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--autotune with a shard folder", "not supported yet");
    }

    @Test
    void aBadBudgetIsNamedByItsOwnFlag() {
        CliRun window = CliRun.stoker("bench", data.toString(), "--autotune", "--autotune-window", "0", "--batches", "1");
        assertThat(window.exitCode()).isEqualTo(2);
        assertThat(window.err()).contains("--autotune-window: 0 (expected: 20+ ms)").doesNotContain("--autotune-cores");
        CliRun cores = CliRun.stoker("bench", data.toString(), "--autotune", "--autotune-cores", "-1", "--batches", "1");
        assertThat(cores.exitCode()).isEqualTo(2);
        assertThat(cores.err()).contains("--autotune-cores: -1.0 (expected: a number of cores above 0, or 0 for all of them)");
    }
}
