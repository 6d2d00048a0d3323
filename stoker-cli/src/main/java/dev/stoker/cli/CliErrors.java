package dev.stoker.cli;

import dev.stoker.pipeline.FailureBudgetExceededException;
import dev.stoker.pipeline.InvalidValueException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the {@code stoker} command reports errors: one line on standard error naming the command and
 * what was wrong; the stack trace only with {@code -v} / {@code --verbose} or {@code STOKER_DEBUG=1}.
 */
final class CliErrors {
    static final String DEBUG_ENV = "STOKER_DEBUG";

    private CliErrors() { }

    /** A usage error (unknown option, bad value): exit 2. */
    static int onUsageError(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String command = cl.getCommandSpec().qualifiedName();
        StringBuilder line = new StringBuilder(command).append(": ").append(oneLine(e.getMessage()));
        if (e instanceof UnmatchedArgumentException unmatched) {
            List<String> suggestions = unmatched.getSuggestions();
            if (!suggestions.isEmpty()) {
                line.append(" (did you mean ").append(String.join(" or ", suggestions.subList(0, Math.min(3, suggestions.size()))))
                        .append("?)");
            }
        }
        line.append("; see '").append(command).append(" --help'");
        cl.getErr().println(line);
        if (debug(Arrays.asList(args))) {
            e.printStackTrace(cl.getErr());
        }
        cl.getErr().flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** A command failed while running: exit 1. */
    static int onFailure(Exception e, CommandLine cl, ParseResult parsed) {
        String line = cl.getCommandSpec().qualifiedName() + ": " + describe(e);
        if (budgetExceeded(e) && cl.getCommandSpec().findOption("--failure-budget") != null) {
            line += " (to skip more failed samples, raise the budget: --failure-budget RATE[@MIN_ITEMS], e.g. 0.3@100;"
                    + " 1 never stops)";
        }
        cl.getErr().println(line);
        if (debug(parsed)) {
            e.printStackTrace(cl.getErr());
        }
        cl.getErr().flush();
        return cl.getCommandSpec().exitCodeOnExecutionException();
    }

    /** Whether {@code e} or a cause is a loader's or an ingest's failure budget running out. */
    private static boolean budgetExceeded(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FailureBudgetExceededException) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code e}'s message, an {@link InvalidValueException}'s under the option a user gives the parameter by
     * ({@code options}: the parameter's name, as the code that refused the value names it, to the option).
     */
    static String asOption(IllegalArgumentException e, Map<String, String> options) {
        if (e instanceof InvalidValueException invalid && options.containsKey(invalid.name())) {
            return invalid.as(options.get(invalid.name())).getMessage();
        }
        return e.getMessage();
    }

    /** The exception's message on one line, or its type and its cause's message when it has none. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            Throwable cause = e.getCause();
            message = e.getClass().getSimpleName() + (cause == null ? "" : ": " + describe(cause));
        }
        return oneLine(message);
    }

    /**
     * {@code "PATH: reason"}, naming {@code path} once: file-system exceptions already start their message with
     * the path they failed on ({@code "/x: dataset source does not exist"}).
     */
    static String describePath(java.nio.file.Path path, Throwable e) {
        String message = describe(e);
        return message.contains(path.toString()) ? message : path + ": " + message;
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** Whether to print stack traces, before parsing succeeded: from the raw arguments. */
    private static boolean debug(List<String> args) {
        return debugEnv() || args.contains("-v") || args.contains("--verbose");
    }

    private static boolean debug(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return debugEnv();
    }

    private static boolean debugEnv() {
        return "1".equals(System.getenv(DEBUG_ENV));
    }
}
