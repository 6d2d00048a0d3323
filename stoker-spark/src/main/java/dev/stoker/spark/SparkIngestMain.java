package dev.stoker.spark;

import dev.stoker.store.IngestOptions;
import dev.stoker.store.shard.Manifest;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * {@code spark-submit --class dev.stoker.spark.SparkIngestMain stoker-spark.jar SRC DEST [options]}, and the JVM
 * {@code stoker ingest SRC DEST --spark local[N]} starts. Options: {@code --master M} (default: spark-submit's),
 * {@code --partition-sources N} (default 64), {@code --workers N} (threads a task; default 1: Spark runs one task
 * a core), {@code --s3-endpoint URL}, and the ingest's {@code --options JSON} (what {@code stoker ingest} parsed).
 */
public final class SparkIngestMain {
    private SparkIngestMain() {
    }

    /** A line per finished task (the driver's view of the job): partitions done, failed attempts, time. */
    private static final class Progress extends SparkListener {
        private final int partitions;
        private final long startNanos;
        private final AtomicInteger done = new AtomicInteger();

        Progress(int partitions, long startNanos) {
            this.partitions = partitions;
            this.startNanos = startNanos;
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            boolean ok = end.taskInfo().successful();
            int n = ok ? done.incrementAndGet() : done.get();
            System.out.printf(Locale.ROOT, "ingest: task %d %s, %d of %d partitions done, %.1f s%n", end.taskInfo().index(),
                    ok ? "done" : "failed (Spark retries it): " + end.reason(), n, partitions,
                    (System.nanoTime() - startNanos) / 1e9);
            System.out.flush();
        }
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
        for (int i = 2; i < args.length; i += 2) {
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
                        + " --partition-sources, --workers, --s3-endpoint or --options)");
            }
        }
        IngestPlan plan = SparkIngest.plan(args[0], args[1], endpoint, options, partitionSources, workers);
        SparkConf conf = new SparkConf().setAppName("stoker ingest " + args[0]).set("spark.ui.showConsoleProgress", "false");
        if (master != null) {
            conf.setMaster(master);
        }
        long start = System.nanoTime();
        SparkIngest.Result result;
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            spark.setLogLevel("WARN");
            spark.sc().addSparkListener(new Progress(plan.partitions(), start));
            result = SparkIngest.run(spark, plan);
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
