package dev.stoker.cli;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.video.loader.Quarantine;
import dev.stoker.video.scan.internal.DatasetScan;
import dev.stoker.video.scan.internal.ScanReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stoker scan DATASET}: opens every video once and reports the ones a loader would fail on. */
@Command(name = "scan",
        header = "Open every video of a dataset once: which files would fail, and why.",
        mixinStandardHelpOptions = true,
        description = {
                "Opens every video of DATASET (a folder ROOT/<class>/<video>, a CSV manifest or WebDataset .tar",
                "archives) once, as the loader does: the container, its video stream, the whole index, and a",
                "decode of the first group of pictures; duration and frame count come from the index. Prints a",
                "table of failure reasons with the files under each. Run it once before a long training job, and",
                "give the loader the quarantine file it writes (--quarantine) so that the broken files are left",
                "out from the start.",
                "Exits 0 whatever it finds (an unreadable DATASET is an error).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker scan ~/kinetics/train --quarantine bad.jsonl",
                "  stoker bench ~/kinetics/train --quarantine bad.jsonl   broken files left out",
                "  stoker scan train.csv --workers 4 --json scan.json",
        })
final class ScanCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "DATASET") Path source;
    @Option(names = "--quarantine", paramLabel = "FILE") Path quarantine;
    @Option(names = "--workers", paramLabel = "N") Integer workers;
    @Option(names = "--json", paramLabel = "FILE") Path json;
    @Option(names = "--frame-folder-fps", defaultValue = "30", paramLabel = "FPS") double frameFolderFps;

    @Override
    public Integer call() throws Exception {
        OutputFiles.checkWritable("--json", json);
        PrintWriter out = out();
        int threads = workers != null ? workers : DatasetScan.DEFAULT_WORKERS;
        if (threads < 1) {
            throw usageError("--workers: " + threads + " (expected: 1+)");
        }
        Quarantine into = null;
        if (quarantine != null) {
            try {
                into = Quarantine.open(quarantine);
            } catch (IOException e) {
                throw usageError("--quarantine: " + CliErrors.describePath(quarantine, e));
            }
        }
        Dataset dataset = LoaderOptionsMixin.openDataset(spec, source);
        DatasetScan scan = DatasetScan.of(dataset).workers(threads)
                .frameFolderFps(LoaderOptionsMixin.frameFolderFps(spec, frameFolderFps));
        ScanReport report;
        try (ProgressBar bar = new ProgressBar(out, LiveStatsView.stdoutIsTerminal(), "scan", "videos", () -> "")) {
            bar.total(scan.files().size());
            report = scan.onEachFile(r -> bar.done(!r.ok())).run();
        }
        out.print(report.toTable(Files.isDirectory(source) ? source : null));
        if (into != null) {
            int added = report.quarantineInto(into);
            out.printf("quarantine: %d files added to %s (%d listed in all)%n", added, quarantine, into.entries().size());
        }
        OutputFiles.json(out, json, report.toJson());
        out.flush();
        return ExitCode.OK;
    }
}
