package dev.stoker.spark;

import dev.stoker.store.IngestOptions;
import dev.stoker.store.shard.Manifest;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * {@code spark-submit --class dev.stoker.spark.SparkIngestMain stoker-spark.jar SRC DEST [options]}, and the JVM
 * {@code stoker ingest SRC DEST --spark local[N]} starts. Options: {@code --master M} (default: spark-submit's),
 * {@code --partition-sources N} (default 64), {@code --workers N} (threads a task; default 1: Spark runs one task
 * a core), {@code --s3-endpoint URL}, the ingest's {@code --options JSON} (what {@code stoker ingest} parsed), and
 * {@code --progress-lines} (progress for {@code stoker ingest}'s bar; without it, a log line every 5 s).
 */
public final class SparkIngestMain {
    /**
     * With {@code --progress-lines} (as {@code stoker ingest --spark} runs the job), progress goes out as
     * {@code stoker-progress DONE FAILED SOURCES BYTES} lines for the command's progress bar.
     */
    public static final String PROGRESS_PREFIX = "stoker-progress ";

    private SparkIngestMain() {
    }

    /** Progress as lines: every change for {@code stoker ingest --spark} to draw, else a log line every 5 s. */
    private static Consumer<SparkProgress.Snapshot> progressLines(boolean forTheCli, long startNanos) {
        long[] lastPrinted = {0};
        return snapshot -> {
            long now = System.nanoTime();
            boolean finished = snapshot.done() >= snapshot.sources();
            if (forTheCli) {
                System.out.println(PROGRESS_PREFIX + snapshot.done() + " " + snapshot.failed() + " " + snapshot.sources() + " "
                        + snapshot.bytesWritten());
            } else if (finished || now - lastPrinted[0] >= 5_000_000_000L) {
                lastPrinted[0] = now;
                double seconds = (now - startNanos) / 1e9;
                System.out.printf(Locale.ROOT, "ingest: %d/%d sources  %.1f/s  %.1f MiB written  %d failed%n", snapshot.done(),
                        snapshot.sources(), seconds > 0 ? snapshot.done() / seconds : 0, snapshot.bytesWritten() / 1048576.0,
                        snapshot.failed());
            }
            System.out.flush();
        };
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: SparkIngestMain SRC DEST [--master M] [--partition-sources N] [--workers N]"
                    + " [--s3-endpoint URL] [--options JSON]");
            System.exit(2);
        }
        String master = null;
        int partitionSources = 64;
        int workers = 1;
        URI endpoint = null;
        IngestOptions options = IngestOptions.defaults();
        boolean progressLines = false;
        for (int i = 2; i < args.length; i += 2) {
            if (args[i].equals("--progress-lines")) {
                progressLines = true;
                i--;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + ": no value (expected: " + args[i] + " VALUE)");
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--master" -> master = value;
                case "--partition-sources" -> partitionSources = Integer.parseInt(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--s3-endpoint" -> endpoint = URI.create(value);
                case "--options" -> options = SparkIngest.options(value);
                default -> throw new IllegalArgumentException(args[i] + ": unknown option (expected: --master,"
                        + " --partition-sources, --workers, --s3-endpoint, --options or --progress-lines)");
            }
        }
        IngestPlan plan = SparkIngest.plan(args[0], args[1], endpoint, options, partitionSources, workers);
        // Running tasks' counts reach the driver with the executors' heartbeats: every 2 s rather than 10.
        SparkConf conf = new SparkConf().setAppName("stoker ingest " + args[0]).set("spark.ui.showConsoleProgress", "false")
                .setIfMissing("spark.executor.heartbeatInterval", "2s");
        if (master != null) {
            conf.setMaster(master);
        }
        long start = System.nanoTime();
        SparkIngest.Result result;
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            spark.setLogLevel("WARN");
            result = SparkIngest.run(spark, plan, progressLines(progressLines, start));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "ingested %d of %d sources into %s on Spark: %s, %d partitions of %d sources (%d run,"
                        + " %d already committed) in %.1f s%n", result.samples(), result.sources(), args[1], options.format(),
                result.partitions(), partitionSources, result.partitionsRun(), result.partitionsSkipped(), seconds);
        if (result.failed() > 0) {
            System.out.printf(Locale.ROOT, "%d sources failed:%n", result.failed());
            for (Manifest.FailedSource f : result.failures().stream().limit(10).toList()) {
                System.out.printf("  %s: %s%n", f.source(), f.reason());
            }
        }
    }
}
