package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.gpu.Cuda;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@code stoker bench --device}: CPU stays the default; a GPU that is not there is one clear line. */
class BenchDeviceOptionTest {

    @Test
    void cudaWithoutADriverFailsOnOneLineNamingWhatIsMissing() {
        Assumptions.assumeFalse(Cuda.available(), "this machine has a GPU: the failure path cannot be seen here");
        CliRun run = CliRun.stoker("bench", "--device", "cuda:0", "--batches", "1");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("stoker bench: --device cuda:0: " + Cuda.unavailableReason());
        assertThat(run.out()).as("no dataset work before the check").isEmpty();
    }

    @Test
    void onThisMachineTheMissingPieceIsTheDriver() {
        Assumptions.assumeFalse(Cuda.available(), "this machine has a GPU");
        CliRun run = CliRun.stoker("bench", "--device", "cuda:0");
        assertThat(run.err()).contains("libcuda.so.1 not found: no NVIDIA driver on this machine");
    }

    @Test
    void anUnknownDeviceIsAUsageError() {
        CliRun run = CliRun.stoker("bench", "--device", "tpu:0", "--batches", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.err()).contains("--device: \"tpu:0\" (expected: cpu, cuda or cuda:N)");
    }
}
