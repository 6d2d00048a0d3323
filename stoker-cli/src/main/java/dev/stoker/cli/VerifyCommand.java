package dev.stoker.cli;

import dev.stoker.bench.internal.Bytes;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.ShardVerifier;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;

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
                "  stoker ingest data/demo shards/demo   rewrites damaged shards, once deleted",
        })
final class VerifyCommand extends ShardFolderCommand {
    @Override
    int report(PrintWriter out) throws IOException {
        if (!ShardDataset.isShardDataset(dest)) {
            throw usageError("DEST: " + dest + ": no " + ShardDataset.MANIFEST
                    + " (expected: a folder written by a finished stoker ingest)");
        }
        ShardVerifier.Report report = ShardVerifier.verify(dest);
        for (ShardVerifier.Damage damage : report.damages()) {
            out.println("damaged: " + damage);
        }
        out.printf(Locale.ROOT, "%s: %d shards, %d records, %s checked: %s%n", dest, report.shards(), report.records(),
                Bytes.human(report.bytes()),
                report.intact() ? "all checksums match" : report.damages().size() + " damaged");
        return report.intact() ? ExitCode.OK : ExitCode.SOFTWARE;
    }
}
