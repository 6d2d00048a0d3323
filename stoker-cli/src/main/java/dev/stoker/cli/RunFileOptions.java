package dev.stoker.cli;

import dev.stoker.pipeline.TraceRecorder;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The files a measured run ({@code bench}, {@code train}) writes at its end when asked: its results as JSON
 * ({@code --json}), a Chrome trace ({@code --trace}) and an HTML report ({@code --report}). Each command describes
 * its own (help.properties), and writes its own report.
 */
final class RunFileOptions {
    @Option(names = "--json", paramLabel = "FILE") Path json;
    @Option(names = "--trace", paramLabel = "FILE") Path trace;
    @Option(names = "--report", paramLabel = "FILE") Path report;

    /** Refuses, before the run, any of the files that the run could not write at its end. */
    void checkWritable() {
        OutputFiles.checkWritable("--json", json);
        OutputFiles.checkWritable("--trace", trace);
        OutputFiles.checkWritable("--report", report);
    }

    /** A recorder for the run's trace with {@code --trace}, else null: nothing is recorded. */
    TraceRecorder traceRecorder() {
        return trace == null ? null : TraceRecorder.create();
    }
}
