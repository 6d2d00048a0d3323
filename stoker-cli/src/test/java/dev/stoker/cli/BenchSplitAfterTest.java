package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code stoker bench --split-after STAGE}: the stages up to STAGE run in a child JVM, the run delivers its batches. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BenchSplitAfterTest {
    @TempDir
    static Path dir;
    static final Path data = CliRun.sharedDemoData(2, 2, 1);

    private static JsonNode bench(String splitAfter, Path json) throws IOException {
        CliRun run = CliRun.stoker("bench", data.toString(), "--split-after", splitAfter, "--batches", "3", "--batch", "2",
                "--frames", "4", "--no-reference", "--json", json.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        return new ObjectMapper().readTree(json.toFile());
    }

    private static List<String> stageNames(JsonNode result) {
        List<String> names = new ArrayList<>();
        result.at("/stats/stages").forEach(s -> names.add(s.get("name").asText()));
        return names;
    }

    @Test
    void splitAfterDemuxRunsFetchAndDemuxInAChildAndDeliversTheBatches() throws IOException {
        JsonNode result = bench("demux", dir.resolve("demux.json"));
        assertThat(result.get("batches").asLong()).as("batches delivered, from videos demuxed in the child").isEqualTo(3);
        assertThat(result.get("samples_per_second").asDouble()).isPositive();
        assertThat(stageNames(result)).contains("child:fetch", "child:demux", "decode").doesNotContain("fetch", "demux");
        assertThat(result.get("failures")).isEmpty();
    }

    @Test
    void splitAfterFetchStillRunsOnlyFetchInTheChild() throws IOException {
        JsonNode result = bench("fetch", dir.resolve("fetch.json"));
        assertThat(result.get("batches").asLong()).isEqualTo(3);
        assertThat(stageNames(result)).contains("child:fetch", "demux", "decode").doesNotContain("fetch", "child:demux");
    }

    @Test
    void splitAfterCollateRunsTheWholeCpuFrontInAChildAndDeliversTheBatches() throws IOException {
        JsonNode result = bench("collate", dir.resolve("collate.json"));
        assertThat(result.get("batches").asLong()).isEqualTo(3);
        assertThat(stageNames(result)).contains("child:fetch", "child:demux", "child:decode", "child:convert", "child:batch",
                "child:collate", "deliver").doesNotContain("decode", "collate");
        assertThat(result.get("decoded_frames_per_clip").asDouble()).as("counted from the delivered clips").isPositive();
        assertThat(result.get("failures")).isEmpty();
    }

    @Test
    void splitAfterAnUnknownStageIsAUsageErrorNamingTheStagesThatCanBeSplit() {
        CliRun run = CliRun.stoker("bench", data.toString(), "--split-after", "resize", "--batches", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--split-after: 'resize' (expected: one of [fetch, demux, decode, convert, batch, collate]");
    }
}
