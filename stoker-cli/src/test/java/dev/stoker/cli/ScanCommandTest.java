package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workflow the README gives: {@code stoker scan DATA --quarantine bad.jsonl} once, then training with
 * {@code --quarantine bad.jsonl} leaves the broken files out from the start, so that even a budget of 0 (stop at the
 * first failure) trains.
 */
class ScanCommandTest {
    @TempDir
    static Path dir;
    static Path data;
    static Path empty;
    static Path notes;

    @BeforeAll
    static void makeDataset() throws Exception {
        data = dir.resolve("data");
        notes = CliRun.demoDataWithNotAVideo(data);
        empty = Files.createFile(notes.resolveSibling("empty.mp4"));
    }

    @Test
    void scanFindsTheBrokenFilesAndItsQuarantineLetsTrainingSkipThem() throws Exception {
        Path json = dir.resolve("scan.json");
        Path quarantine = dir.resolve("bad.jsonl");
        CliRun scan = CliRun.stoker("scan", data.toString(), "--workers", "2", "--json", json.toString(),
                "--quarantine", quarantine.toString());
        assertThat(scan.exitCode()).as(scan.err()).isZero();
        assertThat(scan.out()).contains("scanned 5 videos", "3 ok, 2 failed", "empty-file", "unknown-format",
                "quarantine: 2 files added");
        String table = scan.out().substring(scan.out().indexOf("scanned"));
        assertThat(table).containsOnlyOnce(data.relativize(empty).toString()).containsOnlyOnce(data.relativize(notes).toString());

        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.get("videos").asInt()).isEqualTo(5);
        assertThat(report.get("failed").asInt()).isEqualTo(2);
        assertThat(report.get("failures_by_reason").get("empty-file").asInt()).isEqualTo(1);
        assertThat(report.get("failures_by_reason").get("unknown-format").asInt()).isEqualTo(1);
        assertThat(report.get("files")).hasSize(5).filteredOn(f -> f.get("ok").asBoolean())
                .allSatisfy(f -> assertThat(f.get("frame_count").asInt()).isPositive());
        assertThat(Files.readAllLines(quarantine)).hasSize(2);

        CliRun again = CliRun.stoker("scan", data.toString(), "--quarantine", quarantine.toString());
        assertThat(again.out()).contains("quarantine: 0 files added");
        assertThat(Files.readAllLines(quarantine)).as("listed once").hasSize(2);

        CliRun bench = CliRun.stoker("bench", data.toString(), "--quarantine", quarantine.toString(), "--batches", "6",
                "--batch", "1", "--frames", "4", "--size", "32", "--no-reference", "--failure-budget", "0");
        assertThat(bench.exitCode()).as(bench.err()).isZero();
        assertThat(bench.out()).contains("quarantine: 2 files (2 read from");
    }
}
