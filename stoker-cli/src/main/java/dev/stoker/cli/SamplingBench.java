package dev.stoker.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.bench.internal.SamplingComparison;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.Dataset;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ExitCode;

/**
 * {@code stoker bench --compare-sampling}: {@link SamplingComparison}'s modes on the dataset, alternated over
 * {@code --rounds} rounds of {@code --batches} batches each, as one table (and its {@code --json}).
 */
final class SamplingBench {
    /** Videos indexed for each mode's eligible starts. */
    private static final int SCAN_VIDEOS = 64;

    private SamplingBench() {
    }

    static int run(PrintWriter out, String name, Dataset dataset, LoaderOptions options, int rounds, long batches, Path json)
            throws IOException, InterruptedException {
        List<SamplingComparison.Mode> modes = SamplingComparison.modes(options);
        int cores = Runtime.getRuntime().availableProcessors();
        double loadAtStart = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        out.printf(Locale.ROOT, "comparing %d sampling modes on %s (%d videos): %d rounds of %d batches each, alternated%n",
                modes.size(), name, dataset.size(), rounds, batches);
        out.flush();
        List<SamplingComparison.Row> rows = SamplingComparison.run(dataset, modes, rounds, batches, SCAN_VIDEOS, out);
        double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        out.println();
        out.print(SamplingComparison.table(rows));
        out.printf(Locale.ROOT, "%d cores, load average %.1f -> %.1f; medians over rounds: samples/s, the process's CPU ms a"
                + " sample, and each round's ratio to the default (x default: samples/s; x CPU: CPU a sample, which other"
                + " processes' load does not change); eligible/video and share: the starts a mode leaves, from %d videos'"
                + " indexes; distinct/video: over a run's delivered clips%n", cores, loadAtStart, loadAtEnd,
                Math.min(SCAN_VIDEOS, dataset.size()));
        if (json != null) {
            ObjectNode node = OutputFiles.JSON.createObjectNode();
            node.put("dataset", name);
            node.put("videos", dataset.size());
            node.put("cores", cores);
            node.put("rounds", rounds);
            node.put("batches", batches);
            node.putArray("load_average").add(loadAtStart).add(loadAtEnd);
            node.set("options", OutputFiles.JSON.valueToTree(options));
            node.set("modes", OutputFiles.JSON.valueToTree(rows));
            OutputFiles.json(out, json, node);
        }
        out.flush();
        return ExitCode.OK;
    }
}
