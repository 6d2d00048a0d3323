package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampling flags ({@code --max-lead-frames}, {@code --clip-window}, {@code --workload}) on the command line: a
 * bad or contradictory value is a usage error naming the flag and what it expects; a bench under a decode budget
 * reports what the clips' starts cost and the share of starts left; {@code --compare-sampling} prints one row a mode.
 */
class SamplingFlagsTest {
    static final Path data = CliRun.sharedDemoData(2, 2, 2);
    @TempDir
    Path dir;

    private static CliRun bench(String... more) {
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("bench", data.toString(), "--batches", "2",
                "--batch", "2", "--frames", "4", "--size", "32", "--no-reference"), java.util.Arrays.stream(more))
                .toArray(String[]::new);
        return CliRun.stoker(args);
    }

    @Test
    void aBadOrContradictoryValueIsAUsageErrorNamingTheFlag() {
        String[][] cases = {
                {"--max-lead-frames", "-2"}, {"--max-lead-frames: -2 (expected: 0+ frames"},
                {"--clip-window", "1:0.5"}, {"--clip-window: 1.0:0.5 (expected: FROM:TO seconds with 0 <= FROM < TO)"},
                {"--clip-window", "half"}, {"--clip-window: half (expected: FROM:TO seconds, e.g. 0:0.5)"},
                {"--workload", "spdl"}, {"--workload: spdl (expected: one of [spdl-example])"},
                {"--workload", "spdl-example", "--max-lead-frames", "0"},
                {"--max-lead-frames: 0 with clip window 0:0.5 (expected: -1; the window fixes where its clip starts)"},
                {"--clip-window", "0:1", "--clips-per-video", "2"}, {"--clips-per-video: 2 with clip window 0:1 (expected: 1"},
        };
        for (int i = 0; i < cases.length; i += 2) {
            CliRun run = bench(cases[i]);
            assertThat(run.exitCode()).as(String.join(" ", cases[i]) + ": " + run.err()).isEqualTo(2);
            assertThat(run.errLines()).as(String.join(" ", cases[i])).first().asString()
                    .startsWith("stoker bench: " + cases[i + 1][0]);
        }
    }

    @Test
    void aBudgetedBenchReportsTheLeadAndTheShareOfStartsLeft() {
        CliRun run = bench("--max-lead-frames", "0");
        assertThat(run.exitCode()).as(run.err()).isZero();
        // 2 s demo videos with one keyframe (GOP 250): one start of the 53 or 54 a 4-frame, stride-2 clip fits at.
        assertThat(run.out()).contains("clip starts             0.0 frames of decode lead a clip (budget 0: 0 clips over it);"
                + " 1.0 of 53.").contains("starts a video eligible (1.9%)");
    }

    @Test
    void compareSamplingPrintsOneRowAModeAndItsJson() throws Exception {
        Path json = dir.resolve("sampling.json");
        CliRun run = bench("--compare-sampling", "--rounds", "1", "--json", json.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("default", "--max-lead-frames 0", "--max-lead-frames 32",
                "--workload spdl-example", "--clips-per-video 2", "--clips-per-video 4", "eligible/video", "distinct/video");
        JsonNode modes = OutputFiles.JSON.readTree(Files.readString(json)).get("modes");
        assertThat(modes).hasSize(6);
        assertThat(modes.get(1).get("mean_lead_frames").asDouble()).isZero();
        assertThat(modes.get(3).get("decoded_frames_per_clip").asDouble()).isLessThanOrEqualTo(16);
        assertThat(modes.get(0).get("eligible").get("eligible_share").asDouble()).isEqualTo(1.0);
        CliRun again = bench("--compare-sampling", "--max-lead-frames", "4");
        assertThat(again.exitCode()).isEqualTo(2);
        assertThat(again.err()).contains("--compare-sampling: sampling: maxLeadFrames 4 (expected: the default sampling");
    }
}
