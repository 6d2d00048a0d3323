package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stoker bench formats} prints one row per storage format (original files first, then video, jpeg,
 * raw) with bytes on disk, samples/s warm and cold and CPU time per clip, then raw's read bandwidth next to a
 * memcpy of the same bytes, and writes them as JSON;
 * {@code stoker bench SHARDS --cold --consumer-ms} reports the read-ahead ({@code prefetch}) and the data
 * readiness, and {@code --cold} on original files runs.
 */
@Timeout(120)
class BenchFormatsCommandTest {
    static final Path source = CliRun.sharedDemoData(2, 2, 2);

    @TempDir
    Path work;

    @Test
    void formatsTableHasARowPerFormatWarmAndColdAndJson() throws IOException {
        Path json = work.resolve("formats.json");
        CliRun run = CliRun.stoker("bench", "formats", source.toString(), "--sample", "2", "--batches", "2", "--batch", "2",
                "--frames", "4", "--size", "64", "--crop", "48", "--fps", "10", "--dir", work.resolve("shards").toString(),
                "--json", json.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> table = run.out().lines().dropWhile(l -> !l.startsWith("format ")).toList();
        assertThat(table.getFirst()).contains("disk/clip").contains("warm samp/s").contains("cold samp/s")
                .contains("CPU s/clip");
        assertThat(table.subList(1, 5)).extracting(l -> l.split("\\s+")[0]).containsExactly("files", "video", "jpeg", "raw");
        List<String> rawRead = run.out().lines().dropWhile(l -> !l.startsWith("raw read bandwidth")).toList();
        assertThat(rawRead).hasSizeGreaterThan(4);
        assertThat(rawRead.subList(1, 5)).allSatisfy(l -> assertThat(l).contains("/s").endsWith("x memcpy"));
        assertThat(rawRead.get(5)).contains("not interleaved");
        assertThat(rawRead.get(2)).contains("first read");
        assertThat(rawRead.get(3)).contains("every read");

        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("videos").asInt()).isEqualTo(2);
        assertThat(result.get("memcpy_bytes_per_second").asDouble()).isPositive();
        JsonNode raw = result.get("raw_read");
        assertThat(raw.get("clip_bytes").asLong()).isEqualTo(4L * 48 * 48 * 3);
        for (String field : List.of("memcpy_same_bytes_per_second", "reader_first_read_bytes_per_second",
                "reader_every_read_bytes_per_second", "loader_warm_bytes_per_second")) {
            assertThat(raw.get(field).asDouble()).as(field).isPositive();
        }
        JsonNode rows = result.get("rows");
        assertThat(rows).hasSize(4);
        for (JsonNode row : rows) {
            assertThat(row.get("disk_bytes_per_clip").asDouble()).as(row.toString()).isPositive();
            assertThat(row.get("samples_per_second_warm").asDouble()).as(row.toString()).isPositive();
            assertThat(row.get("samples_per_second_cold").asDouble()).as(row.toString()).isPositive();
            assertThat(row.get("cpu_seconds_per_clip").asDouble()).as(row.toString()).isNotNegative(); // 1 batch: may round to 0
        }
        assertThat(rows.get(3).get("format").asText()).isEqualTo("raw");
        assertThat(rows.get(3).get("prefetch_cold").get("hit_rate").isNumber()).isTrue();

        CliRun again = CliRun.stoker("bench", "formats", source.toString(), "--sample", "2", "--batches", "2", "--batch",
                "2", "--frames", "4", "--size", "64", "--crop", "48", "--fps", "10", "--dir", work.resolve("shards").toString());
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).doesNotContain("ingesting"); // the shards are reused
    }

    @Test
    void coldBenchOnShardsReportsPrefetchAndReadiness() throws IOException {
        Path shards = work.resolve("jpeg");
        CliRun ingest = CliRun.stoker("ingest", source.toString(), shards.toString(), "--format", "jpeg", "--size", "64",
                "--workers", "2");
        assertThat(ingest.exitCode()).as(ingest.err()).isZero();
        Path json = work.resolve("bench.json");
        CliRun bench = CliRun.stoker("bench", shards.toString(), "--cold", "--consumer-ms", "20", "--prefetch-bytes", "8M",
                "--batches", "6", "--batch", "2", "--frames", "4", "--size", "48", "--json", json.toString());
        assertThat(bench.exitCode()).as(bench.err()).isZero();
        assertThat(bench.out()).contains("cold page cache").contains("prefetch         hit rate").contains("data readiness");
        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("cold").asBoolean()).isTrue();
        assertThat(result.get("prefetch").get("budget_bytes").asLong()).isEqualTo(8L << 20);
        assertThat(result.get("prefetch").get("peak_held_bytes").asLong()).isBetween(1L, 8L << 20);
        assertThat(result.get("prefetch").get("requests").asLong()).isPositive();
        assertThat(result.get("data_readiness_after_warmup").asDouble()).isBetween(0.0, 1.0);

        CliRun off = CliRun.stoker("bench", shards.toString(), "--cold", "--prefetch-bytes", "0", "--batches", "2",
                "--batch", "2", "--frames", "4", "--size", "48");
        assertThat(off.exitCode()).as(off.err()).isZero();
        assertThat(off.out()).contains("prefetch         off");

        CliRun files = CliRun.stoker("bench", source.toString(), "--cold", "--batches", "2", "--batch", "2", "--frames", "4",
                "--size", "48", "--no-reference");
        assertThat(files.exitCode()).as(files.err()).isZero();
        assertThat(files.out()).contains("samples/s");
    }
}
