package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.tune.TensorBatch;
import dev.stoker.tune.TrainingStep;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stoker headspace} on a tiny generated dataset: the summary, the JSON, and a step class by name. */
class HeadspaceCommandTest {
    @TempDir
    static Path dir;
    static final Path data = CliRun.sharedDemoData(2, 2, 1);

    /** A step named by --step-class: counts its batches and checks their shape. */
    public static final class CountingStep implements TrainingStep<TensorBatch> {
        static final AtomicInteger STEPS = new AtomicInteger();

        @Override
        public void accept(TensorBatch batch) {
            assertThat(batch.shape()).hasSize(5).endsWith(8, 32, 32, 3);
            assertThat(batch.data().byteSize()).isEqualTo(batch.samples() * 8L * 32 * 32 * 3);
            STEPS.incrementAndGet();
        }
    }

    /** Implements the wrong interface. */
    public static final class NotAStep implements Runnable {
        @Override
        public void run() { }
    }

    @Test
    void headspaceWritesTheFiguresScriptsRead() throws IOException {
        Path json = dir.resolve("headspace.json");
        CliRun run = CliRun.stoker("headspace", data.toString(), "--steps", "4", "--warmup", "1", "--cache", "2",
                "--step-ms", "5", "--frames", "8", "--size", "32", "--batch", "2", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("training step", "ms on cached data", "ms with the loader", "waiting for data",
                "wrote results to");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("floor_step_ms").asDouble()).isPositive();
        assertThat(r.get("achieved_step_ms").asDouble()).isPositive();
        assertThat(r.get("waiting_share").asDouble()).isBetween(0.0, 1.0);
        assertThat(r.get("headspace").asDouble()).isPositive();
        assertThat(r.get("samples_per_second").asDouble()).isPositive();
        assertThat(r.get("ceiling_samples_per_second").asDouble()).isPositive();
        assertThat(r.get("steps_measured").asInt()).isEqualTo(4);
        assertThat(r.get("warmup_steps").asInt()).isEqualTo(1);
        assertThat(r.get("cached_batches").asInt()).isEqualTo(2);
        assertThat(r.get("loader_verdict").asText()).startsWith("bottleneck:");
    }

    @Test
    void aStepClassNamedOnTheCommandLineRunsInBothPhases() {
        CountingStep.STEPS.set(0);
        CliRun run = CliRun.stoker("headspace", data.toString(), "--steps", "3", "--warmup", "0", "--cache", "1",
                "--step-class", CountingStep.class.getName(), "--frames", "8", "--size", "32", "--batch", "8");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(CountingStep.STEPS.get()).isEqualTo(6);
    }

    @Test
    void aStepClassThatIsMissingOrNotATrainingStepIsAUsageError() {
        CliRun missing = CliRun.stoker("headspace", data.toString(), "--step-class", "com.example.NoSuchStep");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.errLines()).singleElement().asString()
                .contains("--step-class: no class com.example.NoSuchStep on the class path", "--step-classpath");

        CliRun wrong = CliRun.stoker("headspace", data.toString(), "--step-class", NotAStep.class.getName());
        assertThat(wrong.exitCode()).isEqualTo(2);
        assertThat(wrong.errLines()).singleElement().asString()
                .contains("does not implement dev.stoker.tune.TrainingStep", "public no-arg constructor");

        CliRun both = CliRun.stoker("headspace", data.toString(), "--step-ms", "5", "--step-class", NotAStep.class.getName());
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.errLines()).singleElement().asString().contains("--step-ms and --step-class: both given");
    }
}
