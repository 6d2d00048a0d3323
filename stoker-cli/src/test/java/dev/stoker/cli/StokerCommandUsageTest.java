package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.InvalidValueException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Help, version, exit codes and one-line usage errors of the {@code stoker} command. */
class StokerCommandUsageTest {

    @Test
    void helpListsTheCommandsWithExamplesAndExitCodes() {
        CliRun run = CliRun.stoker("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: stoker", "Commands:", "demo", "Examples:", "stoker demo", "Exit codes:");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void everyCommandsHelpHasAnExamplesSection() {
        Map<String, CommandLine> commands = StokerCommand.commandLine().getSubcommands();
        assertThat(commands).isNotEmpty();
        commands.forEach((name, command) -> {
            CliRun run = CliRun.stoker(name, "--help");
            assertThat(run.exitCode()).as(name).isZero();
            assertThat(run.out()).as(name + " --help").contains("Usage: stoker " + name, "Examples:", "  stoker " + name);
        });
    }

    @Test
    void descriptionsFlowAsParagraphsAtTheHelpWidthInsteadOfBreakingAtSourceLines() {
        CliRun run = CliRun.stoker("bench", "--help");

        // Source lines of about 95 columns at picocli's 80 used to print as long / short pairs.
        String description = run.out().substring(run.out().indexOf("Loads batches"), run.out().indexOf("DATASET is"));
        java.util.List<String> lines = description.lines().filter(line -> !line.isBlank()).toList();
        assertThat(lines).hasSizeGreaterThan(2).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
        assertThat(lines.subList(0, lines.size() - 1)).allSatisfy(line -> assertThat(line.length()).isGreaterThan(60));
    }

    @Test
    void helpParagraphsJoinFlowingLinesAndKeepBlankAndIndentedOnes() {
        assertThat(HelpParagraphs.join(new String[] {"one", "two", "", "three", "  example 1", "  example 2", "four"}))
                .containsExactly("one two", "", "three", "  example 1", "  example 2", "four");
    }

    @Test
    void anOutputFileThatCannotBeWrittenIsRefusedBeforeTheRunNamingTheFlag() {
        // Found only after the whole run, the results were lost with it.
        for (String[] args : new String[][] {{"bench", "--json", "/nonexistent/dir/x.json", "--batches", "1"},
                {"bench", "--trace", "/nonexistent/dir/t.json", "--batches", "1"},
                {"scan", "--json", "/nonexistent/dir/s.json", "/tmp"}, {"train", "--report", "/nonexistent/dir/r.html"}}) {
            CliRun run = CliRun.stoker(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isNotZero();
            assertThat(run.err()).as(String.join(" ", args)).contains(args[1] + ": cannot write " + args[2]
                    + " (no folder /nonexistent/dir)");
            assertThat(run.out()).as("nothing ran").doesNotContain("samples/s");
        }
    }

    @Test
    void benchRefusesAPortOutOfRangeANegativeConsumerStepAndAHeadspaceOfZeroNamingTheFlag() {
        for (String[] args : new String[][] {{"--dashboard", "99999"}, {"--publish", "-1"}, {"--consumer-ms", "-5"},
                {"--headspace", "0"}}) {
            CliRun run = CliRun.stoker("bench", args[0], args[1], "--batches", "1");
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err()).as(String.join(" ", args)).contains(args[0] + ": " + args[1]);
        }
    }

    @Test
    void aBadLoaderValueIsNamedByItsFlagNotTheFieldBehindIt() {
        for (String[] args : new String[][] {{"--frames", "0", "1+"}, {"--stride", "0", "1+"}, {"--batch", "0", "1+"},
                {"--spatial-crops", "11", "1 to 10"}, {"--concurrency", "decode=0", "1+"}}) {
            CliRun run = CliRun.stoker("options", args[0], args[1]);
            assertThat(run.exitCode()).as(args[0]).isEqualTo(2);
            assertThat(run.err()).as(args[0]).contains(args[0] + ": " + args[1].replace("decode=", "")
                    + " (expected: " + args[2] + ")");
        }
    }

    @Test
    void versionPrintsTheProjectVersionFromTheFilteredResource() {
        CliRun run = CliRun.stoker("--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out().lines().findFirst()).hasValueSatisfying(first ->
                assertThat(first).matches("stoker \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"));
        assertThat(run.out()).contains("Java " + Runtime.version().feature()).doesNotContain("${", "unknown");
    }

    @Test
    void aPlainCommandLineRunsTooWithPicocliDefaults() {
        CliRun run = CliRun.run(new CommandLine(new StokerCommand()), "--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("stoker ");
    }

    @Test
    void aRefusedValueIsReportedUnderTheOptionThatGaveIt() {
        Map<String, String> options = Map.of("warmupSteps", "--warmup");
        assertThat(CliErrors.asOption(new InvalidValueException("warmupSteps", -1, "0+"), options))
                .isEqualTo("--warmup: -1 (expected: 0+)");
        // A parameter the command does not give, and a refusal without fields, keep their own words.
        assertThat(CliErrors.asOption(new InvalidValueException("classes", 1, "2+"), options))
                .isEqualTo("classes: 1 (expected: 2+)");
        assertThat(CliErrors.asOption(new IllegalArgumentException("warmupSteps: is text"), options))
                .isEqualTo("warmupSteps: is text");
    }

    @Test
    void anUnknownOptionIsAUsageErrorOnOneLine() {
        CliRun run = CliRun.stoker("demo", "--bogus");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).singleElement().asString()
                .startsWith("stoker demo: ")
                .contains("'--bogus'", "stoker demo --help");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aMisspelledOptionGetsASuggestion() {
        CliRun run = CliRun.stoker("demo", "--second", "3");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).singleElement().asString().contains("--second", "did you mean --seconds");
    }

    @Test
    void anUnknownCommandIsAUsageErrorOnOneLine() {
        CliRun run = CliRun.stoker("frobnicate");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).singleElement().asString().startsWith("stoker: ").contains("frobnicate");
    }

    @Test
    void badOptionValuesAreUsageErrorsOnOneLine() {
        for (String[] args : new String[][] {
                {"demo", "--seconds", "-1"},
                {"demo", "--seconds", "ten"},
                {"demo", "--config", "/no/such/config.json"},
                {"demo", "--json", "/no/such/dir/stats.json"},
        }) {
            CliRun run = CliRun.stoker(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.errLines()).as(String.join(" ", args)).singleElement().asString()
                    .startsWith("stoker demo: ").contains(args[1]);
        }
    }

    @Test
    void noCommandPrintsTheUsageAsAUsageError() {
        CliRun run = CliRun.stoker();

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Usage: stoker", "Commands:");
    }
}
