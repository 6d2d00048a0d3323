package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stoker train} and {@code stoker headspace --model} end to end on a tiny generated dataset: R3D at a
 * tiny width trained through the DJL module, loaded from stoker-djl/target by its own class loader.
 */
class TrainCommandTest {
    @TempDir
    static Path dir;
    static final Path data = CliRun.sharedDemoData(2, 2, 1);

    @Test
    void djlIsNotOnTheCliClassPath() {
        assertThatThrownBy(() -> Class.forName("ai.djl.Model", false, TrainCommand.class.getClassLoader()))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void trainWritesSummaryJsonTraceAndReport() throws IOException {
        Path json = dir.resolve("train.json");
        Path trace = dir.resolve("train.trace.json");
        Path report = dir.resolve("train.html");
        CliRun run = CliRun.stoker("train", data.toString(), "--width", "0.0625", "--steps", "6", "--warmup", "1",
                "--cache", "2", "--floor-steps", "3", "--frames", "4", "--size", "32", "--batch", "2",
                "--json", json.toString(), "--trace", trace.toString(), "--report", report.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("training r3d width 0.0625", "step 6/6", "loss", "samples/s", "data wait",
                "6 steps (1 warm-up): step p50", "loss ", "at step 1", "headspace: training step", "wrote results to",
                "wrote trace to", "wrote report to");

        JsonNode r = new ObjectMapper().readTree(json.toFile());
        JsonNode steps = r.get("steps");
        assertThat(steps.get("steps").asInt()).isEqualTo(6);
        assertThat(steps.get("loss")).hasSize(6);
        assertThat(steps.get("loss_first").asDouble()).isEqualTo(steps.get("loss").get(0).asDouble()).isPositive();
        assertThat(steps.get("step_ms_p50").asDouble()).isPositive();
        assertThat(steps.get("step_ms_p99").asDouble()).isGreaterThanOrEqualTo(steps.get("step_ms_p50").asDouble());
        assertThat(steps.get("data_wait_share").asDouble()).isBetween(0.0, 1.0);
        assertThat(steps.get("samples_per_second").asDouble()).isPositive();
        assertThat(r.get("headspace").get("floor_step_ms").asDouble()).isPositive();
        assertThat(r.get("headspace").get("headspace").asDouble()).isPositive();
        assertThat(r.get("headspace").get("cached_batches").asInt()).isEqualTo(2);
        assertThat(r.get("headspace").get("steps_measured").asInt()).isEqualTo(5);
        assertThat(r.get("batch_size").asInt()).isEqualTo(2);

        JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        Set<String> names = new HashSet<>();
        events.forEach(e -> names.add(e.path("name").asText()));
        assertThat(names).contains("batch", "wait", "train", "decode", "collate");

        String html = Files.readString(report);
        assertThat(html).contains("<canvas id=\"loss-chart\"", "<canvas id=\"step-chart\"", "\"loss\":[", "new Chart(");
    }

    @Test
    void headspaceStepsTheSameModel() {
        CliRun run = CliRun.stoker("headspace", data.toString(), "--model", "r3d", "--width", "0.0625", "--steps", "3",
                "--warmup", "1", "--cache", "2", "--frames", "4", "--size", "32", "--batch", "2");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("step: r3d width 0.0625", "ms on cached data", "ms with the loader");
    }

    @Test
    void badModelOptionsAreUsageErrors() {
        CliRun device = CliRun.stoker("train", data.toString(), "--device", "tpu", "--steps", "1");
        assertThat(device.exitCode()).isEqualTo(2);
        assertThat(device.err()).contains("--device: tpu (expected: cpu or cuda:N)");
        CliRun model = CliRun.stoker("train", data.toString(), "--model", "vit", "--steps", "1");
        assertThat(model.exitCode()).isEqualTo(2);
        assertThat(model.err()).contains("--model: vit (expected one of [r3d])");
        CliRun both = CliRun.stoker("headspace", data.toString(), "--model", "r3d", "--step-ms", "5");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("--model with --step-ms");
    }
}
