package dev.stoker.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * A command that reads one ingested shard folder, {@code DEST} ({@code inspect}, {@code verify}): a folder it cannot
 * read is a usage error naming {@code DEST} and why.
 */
abstract class ShardFolderCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DEST") Path dest;

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            return report(out);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "DEST: " + CliErrors.describePath(dest, e));
        } finally {
            out.flush();
        }
    }

    /** Prints what this command says about {@link #dest}; returns the exit code. */
    abstract int report(PrintWriter out) throws IOException;
}
