package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.ClipReader;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.shard.Manifest;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.ClipSpec;
import dev.stoker.video.Resize;
import dev.stoker.video.dataset.Dataset;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest as a Spark job ({@code local[2]}, two attempts a task) over the real sample videos, the damaged ones
 * included, against the in-process ingest of the same list: the same samples and failures, and every clip equal byte
 * for byte; a task killed mid-partition is retried and the result is still exact; a rerun after completion runs no
 * partition and leaves the manifest as it was.
 */
class SparkIngestTest {
    private static final IngestOptions OPTIONS = IngestOptions.defaults().withFormat(IngestOptions.VIDEO).withShortSide(96)
            .withShardSize(256L << 10);
    private static final List<ClipSpec> SPECS = List.of(ClipSpec.frames(0, 8, 2), ClipSpec.frames(0.6, 4, 3));
    private static final Resize RESIZE = Resize.centerCrop(96, 64, 64);

    @TempDir
    static Path dir;
    static Path csv;
    static Path local;
    static JavaSparkContext spark;

    @BeforeAll
    static void ingestInProcessAndStartSpark() throws IOException {
        String shared = System.getProperty("stoker.shared.videos");
        assumeTrue(shared != null, "system property stoker.shared.videos is not set (surefire sets it)");
        Path root = Path.of(shared).toAbsolutePath().normalize();
        assumeTrue(Files.isDirectory(root.resolve("damaged")), "shared sample videos not found at " + root);
        List<Path> videos;
        try (Stream<Path> files = Stream.concat(Files.list(root), Files.list(root.resolve("damaged")))) {
            videos = files.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".txt")).sorted().toList();
        }
        csv = dir.resolve("videos.csv");
        Files.writeString(csv, videos.stream().map(v -> v + "," + (v.toString().contains("damaged") ? "damaged" : "good"))
                .collect(Collectors.joining("\n", "", "\n")));
        local = dir.resolve("in-process");
        Ingest.run(Dataset.open(csv), local, OPTIONS, 2, IngestListener.NONE, FailureBudget.UNLIMITED);
        // Two attempts a task (local[N,F]): the killed-task test relies on Spark retrying.
        spark = new JavaSparkContext(new SparkConf().setMaster("local[2,2]").setAppName("stoker-ingest-test")
                .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1"));
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.close();
        }
        System.clearProperty(PartitionTask.KILL_ONCE_PROPERTY);
    }

    @Test
    void sparkIngestEqualsTheInProcessIngestAndARerunDoesNoWork() throws IOException {
        Path dest = dir.resolve("spark");
        IngestPlan plan = SparkIngest.plan(csv.toString(), dest.toString(), null, OPTIONS, 6, 1);
        SparkIngest.Result first = SparkIngest.run(spark, plan);
        assertThat(first.partitions()).isEqualTo(5);
        assertThat(first.partitionsRun()).isEqualTo(5);
        assertSameDataset(dest);

        byte[] manifest = Files.readAllBytes(dest.resolve(ShardDataset.MANIFEST));
        SparkIngest.Result again = SparkIngest.run(spark, plan);
        assertThat(again.partitionsRun()).isZero();
        assertThat(again.partitionsSkipped()).isEqualTo(5);
        assertThat(Files.readAllBytes(dest.resolve(ShardDataset.MANIFEST))).isEqualTo(manifest);
    }

    @Test
    void aTaskKilledMidPartitionIsRetriedAndTheResultIsStillExact() throws IOException {
        Path dest = dir.resolve("spark-killed");
        AtomicInteger failedTasks = new AtomicInteger();
        SparkListener listener = new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd end) {
                if (end.taskInfo().failed()) {
                    failedTasks.incrementAndGet();
                }
            }
        };
        spark.sc().addSparkListener(listener);
        System.setProperty(PartitionTask.KILL_ONCE_PROPERTY, "2");
        try {
            SparkIngest.Result result = SparkIngest.run(spark, SparkIngest.plan(csv.toString(), dest.toString(), null,
                    OPTIONS, 6, 1));
            assertThat(result.partitionsRun()).isEqualTo(5);
        } finally {
            System.clearProperty(PartitionTask.KILL_ONCE_PROPERTY);
            spark.sc().removeSparkListener(listener);
        }
        assertThat(failedTasks.get()).as("tasks that failed and were retried").isEqualTo(1);
        assertThat(dest.resolve("_temporary")).doesNotExist();
        assertSameDataset(dest);
    }

    /** Same samples (source, label, frames, size), same failures, and every clip of every sample equal byte for byte. */
    private static void assertSameDataset(Path dest) throws IOException {
        try (ShardDataset want = ShardDataset.open(local); ShardDataset got = ShardDataset.open(dest);
             ClipReader a = want.newReader(); ClipReader b = got.newReader(); Arena arena = Arena.ofConfined()) {
            Manifest expected = want.manifest();
            Manifest actual = got.manifest();
            assertThat(actual.sourceCount()).isEqualTo(expected.sourceCount());
            assertThat(actual.failed()).extracting(Manifest.FailedSource::sourceIndex, Manifest.FailedSource::source,
                    Manifest.FailedSource::reason).isEqualTo(expected.failed().stream()
                    .map(f -> org.assertj.core.groups.Tuple.tuple(f.sourceIndex(), f.source(), f.reason())).toList());
            assertThat(actual.failedCount()).isEqualTo(expected.failedCount()).isPositive(); // damaged files: listed, not fatal
            assertThat(got.size()).isEqualTo(want.size()).isEqualTo(actual.sourceCount() - actual.failedCount());
            for (int i = 0; i < want.size(); i++) {
                SampleInfo w = want.sample(i);
                SampleInfo g = got.sample(i);
                assertThat(List.of(g.sourceIndex(), g.label(), g.frameCount(), g.width(), g.height()))
                        .as(w.sourcePath().toString())
                        .isEqualTo(List.of(w.sourceIndex(), w.label(), w.frameCount(), w.width(), w.height()));
                for (ClipSpec spec : SPECS) {
                    long bytes = (long) spec.frameCount() * RESIZE.width() * RESIZE.height() * 3;
                    MemorySegment x = arena.allocate(bytes);
                    MemorySegment y = arena.allocate(bytes);
                    a.read(i, new ClipRequest(spec, RESIZE, x));
                    b.read(i, new ClipRequest(spec, RESIZE, y));
                    assertThat(y.mismatch(x)).as(w.sourcePath() + " " + spec + ": first differing byte").isEqualTo(-1);
                }
            }
        }
    }
}
