package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every {@code stoker} command line in the README and docs/*.md shell blocks is one the command accepts as written:
 * the subcommand exists, every option is one of its own, every value converts to its type. Parsed, not run (most
 * name a dataset of the reader's); the README's quick blocks also run as written in the Python suite
 * (python/tests/test_readme.py). The launcher's own words ({@code bundle}, {@code wheel}) are not the JVM's, and
 * {@code docs/benchmarks-log.md} keeps the commands of old runs as they were.
 */
class DocumentedCommandsTest {
    /** A shell line that runs the command: ./stoker, stoker, or a bundle's bin/stoker, after any VAR=value words. */
    private static final Pattern COMMAND = Pattern.compile("^(?:[A-Z_]+=\\S+\\s+)*(?:\\./stoker|stoker|\\S*/bin/stoker)\\s+(.*)$");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```(bash|sh)[^\\n]*\\n(.*?)^```");
    private static final List<String> LAUNCHER_WORDS = List.of("bundle", "wheel");

    @Test
    void everyDocumentedCommandLineParses() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            // Not the benchmarks' log: it records the commands as they were run then.
            docs.filter(p -> p.toString().endsWith(".md") && !p.toString().endsWith("-log.md")).sorted().forEach(files::add);
        }
        List<String> checked = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Path file : files) {
            Matcher block = FENCE.matcher(Files.readString(file));
            while (block.find()) {
                for (String line : joinContinuations(block.group(2))) {
                    Matcher command = COMMAND.matcher(line.strip());
                    if (!command.matches() || line.contains("STOKER_BUNDLE_MAIN=")) {   // another main class
                        continue;
                    }
                    List<String> args = words(withoutComment(command.group(1)));
                    // A shell variable's value is the shell's to give (a loop over --workers $w): not parsable here.
                    if (args.isEmpty() || LAUNCHER_WORDS.contains(args.getFirst()) || args.stream().anyMatch(a -> a.startsWith("$"))) {
                        continue;
                    }
                    try {
                        StokerCommand.commandLine().parseArgs(args.toArray(String[]::new));
                        checked.add(line);
                    } catch (CommandLine.ParameterException e) {
                        refused.add(root.relativize(file) + ": " + line.strip() + "\n    " + e.getMessage());
                    }
                }
            }
        }
        assertThat(refused).as("documented command lines the command refuses").isEmpty();
        assertThat(checked).as("command lines found in README.md and docs/").hasSizeGreaterThan(50);
    }

    /** A block's lines, with those ending in a backslash joined to the next. */
    private static List<String> joinContinuations(String block) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : block.split("\n")) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                lines.add(current.append(line).toString());
                current.setLength(0);
            }
        }
        return lines;
    }

    /** The line up to a # that starts a shell comment (outside quotes, after a blank). */
    private static String withoutComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /** Shell words up to the first pipe, list or redirection: blanks split, quotes group and are removed. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '|' || c == ';' || c == '&' || c == '>' || c == '<') {
                break;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
