package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The option and parameter texts live in {@code help.properties}, found by key: a misspelt key, or an option
 * added without an entry, would print an option with no text and fail nothing else. These tests catch both.
 */
class HelpTextTest {

    @Test
    void everyOptionAndParameterOfEveryCommandHasAText() {
        List<String> missing = new ArrayList<>();
        for (CommandSpec command : commands(StokerCommand.commandLine())) {
            for (ArgSpec arg : command.args()) {
                if (!isHelpFlag(arg) && String.join("", arg.description()).isBlank()) {
                    missing.add(command.qualifiedName(" ") + " " + key(arg));
                }
            }
        }
        assertThat(missing).as("options without a help text").isEmpty();
    }

    @Test
    void everyKeyOfTheBundleIsReadByAnOptionOrParameter() throws IOException {
        Set<String> read = new HashSet<>();
        for (CommandSpec command : commands(StokerCommand.commandLine())) {
            for (ArgSpec arg : command.args()) {
                read.add(key(arg));
                read.add(command.qualifiedName(".") + "." + key(arg));
            }
        }
        assertThat(bundleKeys()).as("keys no option reads (misspelt, or the option is gone)")
                .isNotEmpty().allSatisfy(key -> assertThat(read).contains(key));
    }

    @Test
    void aSharedTextServesEveryCommandWithTheOptionAndACommandsOwnKeyWins() {
        String shared = "Resample clips to this frame rate by timestamp instead of striding.";
        assertThat(fpsText("bench")).isEqualTo(shared);
        assertThat(fpsText("train")).isEqualTo(shared);
        assertThat(fpsText("ingest")).isEqualTo("Resample to this frame rate (default: keep every source frame and its timestamp).");
    }

    @Test
    void everyExampleAndListLineOfEveryHelpFitsEightyColumns() {
        // picocli wraps a longer example or list line at column 0, splitting its command or URL (a paragraph of
        // prose is joined and wrapped between words: HelpParagraphs).
        List<String> tooLong = new ArrayList<>();
        for (CommandSpec command : commands(StokerCommand.commandLine())) {
            List<String> lines = new ArrayList<>(List.of(command.usageMessage().description()).stream()
                    .filter(line -> line.startsWith(" ")).toList());
            lines.addAll(List.of(command.usageMessage().footer()));
            for (String line : lines) {
                String shown = String.format(line.replace("%n", "")).stripTrailing();
                if (shown.length() > USAGE_WIDTH) {
                    tooLong.add(command.qualifiedName(" ") + ": " + shown.length() + ": " + shown);
                }
            }
        }
        assertThat(tooLong).as("lines over %d columns", USAGE_WIDTH).isEmpty();
    }

    /** picocli's default usage width, which a terminal of any size shows unbroken. */
    private static final int USAGE_WIDTH = 80;

    private static String fpsText(String command) {
        return String.join(" ", StokerCommand.commandLine().getSubcommands().get(command).getCommandSpec()
                .findOption("--fps").description());
    }

    /** The key picocli looks up when an option names none: its longest name without dashes; a parameter's label[index]. */
    private static String key(ArgSpec arg) {
        return switch (arg) {
            case OptionSpec option -> option.longestName().replaceFirst("^-+", "");
            case PositionalParamSpec parameter -> parameter.paramLabel() + "[" + parameter.index().originalValue() + "]";
            default -> throw new IllegalArgumentException(arg.toString());
        };
    }

    private static boolean isHelpFlag(ArgSpec arg) {
        return arg instanceof OptionSpec option && (option.usageHelp() || option.versionHelp());
    }

    private static List<CommandSpec> commands(CommandLine root) {
        List<CommandSpec> all = new ArrayList<>(List.of(root.getCommandSpec()));
        root.getSubcommands().values().forEach(sub -> all.addAll(commands(sub)));
        return all;
    }

    private static Set<String> bundleKeys() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = HelpTextTest.class.getResourceAsStream("help.properties")) {
            assertThat(in).as("dev/stoker/cli/help.properties on the class path").isNotNull();
            properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        return properties.stringPropertyNames();
    }
}
