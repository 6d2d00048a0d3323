package dev.stoker.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Joins the source's line-per-element help texts into paragraphs before picocli wraps them. Picocli ends
 * a line at every array element and also wraps at its width, so a description written as 95-column
 * lines printed at 80 columns came out as one long line, one short one ("per-stage" / "stats, ..."),
 * alternating. An empty element still separates paragraphs, and an indented one (an example, a list
 * item) keeps its own line.
 */
final class HelpParagraphs {
    private HelpParagraphs() {
    }

    /** Applies {@link #join} to the description of every command in {@code commandLine}'s tree. */
    static CommandLine apply(CommandLine commandLine) {
        CommandSpec spec = commandLine.getCommandSpec();
        spec.usageMessage().description(join(spec.usageMessage().description()));
        commandLine.getSubcommands().values().forEach(HelpParagraphs::apply);
        return commandLine;
    }

    /** Consecutive unindented, non-empty lines joined by a space; empty and indented lines kept as they are. */
    static String[] join(String[] lines) {
        List<String> out = new ArrayList<>();
        StringBuilder paragraph = null;
        for (String line : lines) {
            boolean flows = !line.isEmpty() && !line.startsWith(" ");
            if (flows && paragraph != null) {
                paragraph.append(' ').append(line);
                continue;
            }
            if (paragraph != null) {
                out.add(paragraph.toString());
                paragraph = null;
            }
            if (flows) {
                paragraph = new StringBuilder(line);
            } else {
                out.add(line);
            }
        }
        if (paragraph != null) {
            out.add(paragraph.toString());
        }
        return out.toArray(String[]::new);
    }
}
