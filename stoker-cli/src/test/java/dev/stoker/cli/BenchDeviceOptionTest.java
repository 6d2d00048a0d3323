package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.gpu.Cuda;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code stoker bench --device} and {@code --decode}: CPU stays the default; a GPU that is not there is one
 * clear line; option combinations that cannot work are usage errors before any work.
 */
class BenchDeviceOptionTest {

    @Test
    void cudaWithoutADriverFailsOnOneLineNamingWhatIsMissing() {
        Assumptions.assumeFalse(Cuda.available(), "this machine has a GPU: the failure path cannot be seen here");
        CliRun run = CliRun.stoker("bench", "--device", "cuda:0", "--batches", "1");
        assertFailsBeforeAnyWork(run, "stoker bench: --device cuda:0: " + Cuda.unavailableReason());
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

    @Test
    void nvdecDecodingWithoutADriverFailsOnOneLineNamingWhatIsMissing() {
        Assumptions.assumeFalse(Cuda.available(), "this machine has a GPU: the failure path cannot be seen here");
        CliRun run = CliRun.stoker("bench", "--decode", "nvdec", "--batches", "1");
        assertFailsBeforeAnyWork(run, "stoker bench: --decode nvdec on cuda:0: " + Cuda.unavailableReason());
        assertThat(run.err()).contains("libcuda.so.1 not found: no NVIDIA driver on this machine");
        CliRun second = CliRun.stoker("bench", "--device", "cuda:1", "--decode", "nvdec", "--nvdec-sessions", "7");
        assertThat(second.errLines()).containsExactly("stoker bench: --decode nvdec on cuda:1: " + Cuda.unavailableReason());
        CliRun hybrid = CliRun.stoker("bench", "--decode", "hybrid", "--batches", "1");
        assertThat(hybrid.errLines()).containsExactly("stoker bench: --decode hybrid on cuda:0: " + Cuda.unavailableReason());
    }

    @Test
    void decodeOptionsThatCannotWorkAreUsageErrorsBeforeAnyGpuCheck() {
        assertUsageError("--decode: \"tpu\" (expected: one of cpu, nvdec, hybrid, auto)", "--decode", "tpu");
        assertUsageError("--decode nvdec with --device cpu (expected: --device cuda:N, or no --device for cuda:0;"
                + " NVDEC decodes on a GPU)", "--decode", "nvdec", "--device", "cpu");
        assertUsageError("--nvdec-sessions: only with --decode nvdec or hybrid", "--nvdec-sessions", "3");
        assertUsageError("--no-cpu-fallback: only with --decode nvdec or hybrid", "--no-cpu-fallback");
        assertUsageError("--nvdec-sessions: 0 (expected: 1+; leave it out for one session per NVDEC engine)",
                "--decode", "nvdec", "--nvdec-sessions", "0");
        assertUsageError("--decode hybrid with --device cpu (expected: --device cuda:N, or no --device for cuda:0;"
                + " NVDEC decodes on a GPU)", "--decode", "hybrid", "--device", "cpu");
        assertUsageError("--split-after with --decode nvdec (expected: one or the other; running fetch and demux in a"
                + " child process is not supported with NVDEC yet)", "--decode", "nvdec", "--split-after", "demux");
        assertUsageError("--cold with --decode nvdec (expected: one or the other; not supported together yet)",
                "--decode", "nvdec", "--cold");
        assertUsageError("stage 'decode' in --concurrency or --config with --decode nvdec (expected: the stages"
                + " [fetch, demux, nvdec, batch, collate]; --nvdec-sessions N for NVDEC)",
                "--decode", "nvdec", "--concurrency", "decode=3");
    }

    @Test
    void commandsWhoseLoaderDecodesOnTheCpuRefuseGpuDecoding() {
        CliRun run = CliRun.stoker("headspace", "--decode", "nvdec");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--decode nvdec (expected: cpu here; stoker bench and stoker serve decode on the GPU)");
    }

    @Test
    void theSummaryLineSaysWhereTheClipsWereDecoded() {
        assertThat(BenchDevice.summary("cuda:0 (NVIDIA H100)", 800, java.util.Map.of()))
                .isEqualTo("nvdec: 800 clips decoded on cuda:0 (NVIDIA H100)");
        java.util.Map<String, Long> reasons = new java.util.TreeMap<>(java.util.Map.of(
                "codec av1: its decoder here, libaom-av1, has no NVDEC hwaccel", 12L,
                "display rotation 90 degrees (the GPU kernel does not rotate)", 3L));
        assertThat(BenchDevice.summary("cuda:0 (NVIDIA H100)", 800, reasons))
                .isEqualTo("nvdec: 785 clips decoded on cuda:0 (NVIDIA H100), 15 on the CPU instead (codec av1: its"
                        + " decoder here, libaom-av1, has no NVDEC hwaccel: 12; display rotation 90 degrees (the GPU"
                        + " kernel does not rotate): 3)");
    }

    private static void assertUsageError(String message, String... options) {
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("bench"),
                java.util.Arrays.stream(options)).toArray(String[]::new);
        CliRun run = CliRun.stoker(args);
        assertThat(run.exitCode()).as(String.join(" ", options)).isEqualTo(2);
        assertThat(run.errLines()).as(String.join(" ", options)).hasSize(1);
        assertThat(run.err()).as(String.join(" ", options)).contains(message);
    }

    /** Exit 1 with {@code line} as the only error line, and nothing printed: the check comes before any dataset work. */
    private static void assertFailsBeforeAnyWork(CliRun run, String line) {
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly(line);
        assertThat(run.out()).as("no dataset work before the check").isEmpty();
    }
}
