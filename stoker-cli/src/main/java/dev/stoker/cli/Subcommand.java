package dev.stoker.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A {@code stoker} subcommand: picocli injects its spec here, and with it come what every command reaches for,
 * its standard output (picocli's writer, which tests capture) and a usage error (exit code 2, one line).
 */
abstract class Subcommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** The command's standard output. */
    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** A usage error saying {@code message}; throw it. */
    final ParameterException usageError(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
