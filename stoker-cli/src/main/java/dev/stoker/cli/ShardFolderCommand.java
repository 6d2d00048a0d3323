package dev.stoker.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Parameters;

/**
 * A command that reads one ingested shard folder, {@code DEST} ({@code inspect}, {@code verify}): a folder it cannot
 * read is a usage error naming {@code DEST} and why.
 */
abstract class ShardFolderCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "DEST") Path dest;

    @Override
    public final Integer call() {
        PrintWriter out = out();
        try {
            return report(out);
        } catch (IOException e) {
            throw usageError("DEST: " + CliErrors.describePath(dest, e));
        } finally {
            out.flush();
        }
    }

    /** Prints what this command says about {@link #dest}; returns the exit code. */
    abstract int report(PrintWriter out) throws IOException;
}
