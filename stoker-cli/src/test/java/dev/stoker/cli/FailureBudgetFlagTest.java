package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --failure-budget RATE[@MIN_ITEMS]} on every command that loads or ingests: it decides whether a
 * dataset with broken files trains, the budget error names it, and a bad value is a usage error naming it.
 */
class FailureBudgetFlagTest {
    @TempDir
    static Path dir;
    /**
     * Three generated videos and two files that are not videos: 40% of the first epoch fails, both in demux (later
     * epochs skip them: they are quarantined at their first failure).
     */
    static Path mixed;

    @BeforeAll
    static void makeDataset() throws Exception {
        mixed = dir.resolve("mixed");
        Path notes = CliRun.demoDataWithNotAVideo(mixed);
        Files.writeString(notes.resolveSibling("readme.mp4"), "nor is this\n");
    }

    private static CliRun bench(String budget) {
        return CliRun.stoker("bench", mixed.toString(), "--batches", "6", "--batch", "1", "--frames", "4", "--size", "32",
                "--seed", "3", "--no-reference", "--failure-budget", budget);
    }

    @Test
    void aBudgetAboveTheFailureRateTrainsOverSeveralEpochs() {
        CliRun run = bench("0.5@4");
        assertThat(run.exitCode()).as(run.err()).isZero();
        CliRun never = bench("1");
        assertThat(never.exitCode()).as(never.err()).isZero();
    }

    @Test
    void aBudgetBelowTheFailureRateStopsNamingTheFlag() {
        // Judged from the first item on: the second failure among five items is over 30% wherever it falls.
        for (String budget : new String[] {"0.3@1", "0"}) {
            CliRun run = bench(budget);
            assertThat(run.exitCode()).as(budget).isEqualTo(1);
            assertThat(run.errLines()).as(budget).singleElement().asString()
                    .startsWith("stoker bench: failure budget exceeded")
                    .contains("--failure-budget RATE[@MIN_ITEMS]");
        }
    }

    @Test
    void aBadValueIsAUsageErrorOnEveryCommandThatLoadsOrIngests() {
        for (String[] args : new String[][] {
                {"bench", mixed.toString()},
                {"headspace", mixed.toString()},
                {"tune", mixed.toString(), "--out", dir.resolve("tune").toString()},
                {"ingest", mixed.toString(), dir.resolve("shards").toString()},
                {"bench", "formats", mixed.toString()},
        }) {
            String[] withBudget = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
                    java.util.stream.Stream.of("--failure-budget", "2")).toArray(String[]::new);
            CliRun run = CliRun.stoker(withBudget);
            String command = "stoker " + args[0] + (args[1].equals("formats") ? " formats" : "");
            assertThat(run.exitCode()).as(command + ": " + run.err()).isEqualTo(2);
            assertThat(run.errLines()).as(command).singleElement().asString()
                    .startsWith(command + ": --failure-budget: '2' (expected: RATE[@MIN_ITEMS]");
        }
    }

    @Test
    void ingestStopsAtTheBudgetAndSkipsWithinIt() {
        CliRun strict = CliRun.stoker("ingest", mixed.toString(), dir.resolve("strict").toString(), "--failure-budget", "0",
                "--size", "32");
        assertThat(strict.exitCode()).as(strict.err()).isEqualTo(1);
        assertThat(strict.err()).contains("failure budget exceeded", "--failure-budget");
        CliRun lenient = CliRun.stoker("ingest", mixed.toString(), dir.resolve("lenient").toString(), "--size", "32");
        assertThat(lenient.exitCode()).as(lenient.err()).isZero();
        assertThat(lenient.out()).contains("2 sources failed");
    }

    @Test
    void aMissingDatasetIsNamedOnce() {
        String missing = dir.resolve("nonexistent").toString();
        for (String command : new String[] {"bench", "headspace"}) {
            CliRun run = CliRun.stoker(command, missing);
            assertThat(run.exitCode()).as(command).isEqualTo(2);
            String line = run.errLines().getFirst();
            assertThat(line).as(command).contains(missing);
            assertThat(line.indexOf(missing)).as(command + ": " + line).isEqualTo(line.lastIndexOf(missing));
        }
        String missingConfig = dir.resolve("no-such-config.json").toString();
        CliRun config = CliRun.stoker("bench", mixed.toString(), "--config", missingConfig);
        assertThat(config.errLines()).singleElement().asString()
                .isEqualTo("stoker bench: --config: " + missingConfig + ": does not exist; see 'stoker bench --help'");
        CliRun ingest = CliRun.stoker("ingest", missing, dir.resolve("out").toString());
        assertThat(ingest.errLines().getFirst()).satisfies(line ->
                assertThat(line.indexOf(missing)).as(line).isEqualTo(line.lastIndexOf(missing)));
    }
}
