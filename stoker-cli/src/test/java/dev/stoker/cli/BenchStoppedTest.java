package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bench stopped mid-run (its live line says Ctrl-C stops it) prints and writes the figures of the batches it took,
 * instead of losing the run.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchStoppedTest {
    @Test
    void aStoppedRunWritesTheFiguresOfItsBatches(@TempDir Path dir) throws Exception {
        Path data = CliRun.sharedDemoData(2, 2, 1);
        Path json = dir.resolve("bench.json");
        Path out = dir.resolve("out.txt");
        Process bench = CliRun.spawn(out, dir.resolve("err.txt"), "bench", data.toString(), "--batches", "1000000",
                "--batch", "2", "--frames", "4", "--no-reference", "--json", json.toString());
        try {
            // Stopped once batches come: the live view prints the samples taken so far every second.
            while (!Files.readString(out).matches("(?s).*[1-9][0-9]* samples in [1-9][0-9]* steps.*")) {
                assertThat(bench.isAlive()).as("bench ended: %s", Files.readString(dir.resolve("err.txt"))).isTrue();
                Thread.sleep(100);
            }
            // SIGTERM: the JVM's shutdown hooks run as for Ctrl-C's SIGINT (which a test's parent may leave ignored).
            bench.destroy();
            assertThat(bench.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(dir.resolve("err.txt")))
                    .contains("stoker bench: stopping after the batch under way; the figures so far follow");
            String printed = Files.readString(out);
            assertThat(printed).containsPattern("stopped after [1-9][0-9]* batches \\(Ctrl-C or a kill\\)")
                    .contains("samples/s", "wrote results to " + json);
            JsonNode result = new ObjectMapper().readTree(json.toFile());
            assertThat(result.get("batches").asLong()).isPositive().isLessThan(1_000_000);
            assertThat(result.get("samples").asLong()).isEqualTo(2 * result.get("batches").asLong());
        } finally {
            bench.destroyForcibly();
        }
    }
}
