package dev.stoker.cli;

import dev.stoker.bench.Bytes;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.ShardVerifier;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code stoker verify DEST}: checks every checksum of an ingested folder. */
@Command(name = "verify",
        header = "Check every checksum of an ingested shard folder.",
        mixinStandardHelpOptions = true,
        description = {
                "Checks every CRC32C of an ingested shard folder (headers, footers, indexes, index entries,",
                "sample payloads, every frame's packet) and that the manifest agrees with the shards.",
                "Prints each damaged record with its shard, record number and source; exits 1 if any.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker verify shards/demo",
                "  stoker ingest data/demo shards/demo   rewrites damaged shards after deleting them",
        })
final class VerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DEST", description = "A folder written by stoker ingest.")
    Path dest;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (!ShardDataset.isShardDataset(dest)) {
            throw new ParameterException(spec.commandLine(), "DEST: " + dest + ": no " + ShardDataset.MANIFEST
                    + " (expected: a folder written by a finished stoker ingest)");
        }
        ShardVerifier.Report report;
        try {
            report = ShardVerifier.verify(dest);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "DEST: " + CliErrors.describePath(dest, e));
        }
        for (ShardVerifier.Damage damage : report.damages()) {
            out.println("damaged: " + damage);
        }
        out.printf(Locale.ROOT, "%s: %d shards, %d records, %s checked: %s%n", dest, report.shards(), report.records(),
                Bytes.human(report.bytes()),
                report.intact() ? "all checksums match" : report.damages().size() + " damaged");
        out.flush();
        return report.intact() ? ExitCode.OK : ExitCode.SOFTWARE;
    }
}
