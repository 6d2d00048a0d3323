package dev.stoker.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of the {@code stoker} command, with what it printed. */
record CliRun(int exitCode, String out, String err) {

    static CliRun stoker(String... args) {
        return run(StokerCommand.commandLine(), args);
    }

    static CliRun run(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new CliRun(exitCode, out.toString(), err.toString());
    }

    List<String> errLines() {
        return err.lines().filter(l -> !l.isBlank()).toList();
    }
}
