package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.ClipReader;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.shard.Manifest;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.demo.DamagedCopies;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.demo.MixedVideos;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The ingest as a Spark job ({@code local[2]}, two attempts a task) over videos of several kinds, broken ones
 * included, against the in-process ingest of the same list: the same samples and failures, and every clip equal byte
 * for byte; a task killed mid-partition is retried and the result is still exact; a rerun after completion runs no
 * partition and leaves the manifest as it was. Into {@code s3://} (s3proxy in this JVM) each partition commits by a
 * conditional {@code _DONE} object and the result, read back by ranged GETs, is the same.
 */
class SparkIngestTest {
    private static final IngestOptions OPTIONS = IngestOptions.defaults().withFormat(IngestOptions.Format.VIDEO).withShortSide(96)
            .withShardSize(256L << 10);
    private static final List<ClipSpec> SPECS = List.of(ClipSpec.frames(0, 8, 2), ClipSpec.frames(0.6, 4, 3));
    private static final Resize RESIZE = Resize.centerCrop(96, 64, 64);

    @RegisterExtension
    final S3ProxyExtension s3 = S3ProxyExtension.builder().withBlobStoreProvider("filesystem-nio2")
            .withCredentials("stoker", "stoker-secret").build();

    @TempDir
    static Path dir;
    static Path csv;
    static Path local;
    static JavaSparkContext spark;

    @BeforeAll
    static void ingestInProcessAndStartSpark() throws IOException {
        // The mixed kinds, demo videos up to 24, and four broken files: 26 or 28 sources, 5 partitions of 6, 3 of 10.
        List<Path> good = new ArrayList<>(MixedVideos.files());
        try (Stream<Path> files = Files.walk(DemoFolders.of(DemoSpec.small(2, 10, 1.0)))) {
            files.filter(p -> p.toString().matches(".*_\\d{3}\\.(mp4|webm)")).sorted().limit(24 - good.size()).forEach(good::add);
        }
        Path broken = Files.createDirectories(dir.resolve("damaged"));
        Path mp4 = good.stream().filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        List<Path> damaged = List.of(DamagedCopies.cut(mp4, 0.5, broken.resolve("cut.mp4")),
                DamagedCopies.garbled(mp4, broken.resolve("garbled.mp4")), Files.createFile(broken.resolve("empty.mp4")),
                Files.writeString(broken.resolve("notes.mp4"), "not a video\n".repeat(20)));
        List<Path> videos = Stream.concat(good.stream(), damaged.stream()).toList();
        csv = dir.resolve("videos.csv");
        // A caption for every other video (the fifth field): each partition's manifest keeps its samples' texts.
        Files.writeString(csv, videos.stream().map(v -> v + "," + (v.toString().contains("damaged") ? "damaged" : "good")
                        + (videos.indexOf(v) % 2 == 0 ? ",,,\"caption of " + v.getFileName() + ", \u6f22\"" : ""))
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
        List<SparkProgress.Snapshot> progress = new CopyOnWriteArrayList<>();
        SparkIngest.Result first = SparkIngest.run(spark, plan, progress::add);
        assertThat(first.partitions()).isEqualTo(5);
        assertThat(first.partitionsRun()).isEqualTo(5);
        assertSameDataset(dest);
        // The progress the bar draws: moving as tasks finish, ending at every source, the damaged ones failed.
        assertThat(progress).hasSizeGreaterThanOrEqualTo(5);
        assertThat(progress.getLast()).satisfies(last -> {
            assertThat(last.sources()).isEqualTo(first.sources());
            assertThat(last.done()).isEqualTo(first.sources());
            assertThat(last.failed()).isEqualTo(first.failed()).isPositive();
            assertThat(last.bytesWritten()).isPositive();
        });
        for (int i = 1; i < progress.size(); i++) {
            assertThat(progress.get(i).done()).as("progress %s", progress).isGreaterThanOrEqualTo(progress.get(i - 1).done());
        }

        byte[] manifest = Files.readAllBytes(dest.resolve(ShardDataset.MANIFEST));
        List<SparkProgress.Snapshot> rerun = new CopyOnWriteArrayList<>();
        SparkIngest.Result again = SparkIngest.run(spark, plan, rerun::add);
        assertThat(again.partitionsRun()).isZero();
        assertThat(rerun).isEmpty(); // committed partitions: no job, nothing to draw
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
            List<SparkProgress.Snapshot> progress = new CopyOnWriteArrayList<>();
            SparkIngest.Result result = SparkIngest.run(spark, SparkIngest.plan(csv.toString(), dest.toString(), null,
                    OPTIONS, 6, 1), progress::add);
            assertThat(result.partitionsRun()).isEqualTo(5);
            assertThat(progress.getLast().done()).as("the killed attempt counted once, by its retry")
                    .isEqualTo(result.sources());
            assertThat(progress.getLast().failed()).isEqualTo(result.failed());
        } finally {
            System.clearProperty(PartitionTask.KILL_ONCE_PROPERTY);
            spark.sc().removeSparkListener(listener);
        }
        assertThat(failedTasks.get()).as("tasks that failed and were retried").isEqualTo(1);
        assertThat(dest.resolve("_temporary")).doesNotExist();
        assertSameDataset(dest);
    }

    @Test
    void sparkIngestIntoS3CommitsEachPartitionByAConditionalDoneObject() throws IOException {
        String bucket = "spark-" + Long.toHexString(System.nanoTime());
        System.setProperty("aws.accessKeyId", s3.getAccessKey());
        System.setProperty("aws.secretAccessKey", s3.getSecretKey());
        System.setProperty("aws.region", "us-east-1");
        try (S3Client client = S3Client.builder().endpointOverride(s3.getUri()).forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create(s3.getAccessKey(), s3.getSecretKey()))
                .httpClientBuilder(ApacheHttpClient.builder()).build()) {
            client.createBucket(b -> b.bucket(bucket));
            String dest = "s3://" + bucket + "/shards";
            IngestPlan plan = SparkIngest.plan(csv.toString(), dest, s3.getUri(), OPTIONS, 10, 1);
            SparkIngest.Result first = SparkIngest.run(spark, plan);
            assertThat(first.partitionsRun()).isEqualTo(3);
            List<String> keys = client.listObjectsV2Paginator(r -> r.bucket(bucket)).contents().stream()
                    .map(o -> o.key()).toList();
            assertThat(keys).contains("shards/parts/part-00000/_DONE", "shards/parts/part-00002/_DONE",
                    "shards/" + ShardDataset.MANIFEST);
            try (ShardDataset remote = ShardDataset.open(dest, s3.getUri(), Verification.FIRST_READ)) {
                assertSameDataset(remote);
            }
            assertThat(SparkIngest.run(spark, plan).partitionsRun()).isZero();
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
            System.clearProperty("aws.region");
        }
    }

    private static void assertSameDataset(Path dest) throws IOException {
        try (ShardDataset got = ShardDataset.open(dest)) {
            assertSameDataset(got);
        }
    }

    /** Same samples (source, label, frames, size), same failures, and every clip of every sample equal byte for byte. */
    private static void assertSameDataset(ShardDataset got) throws IOException {
        try (ShardDataset want = ShardDataset.open(local);
             ClipReader a = want.newReader(); ClipReader b = got.newReader(); Arena arena = Arena.ofConfined()) {
            Manifest expected = want.manifest();
            Manifest actual = got.manifest();
            assertThat(actual.sourceCount()).isEqualTo(expected.sourceCount());
            assertThat(actual.failed()).extracting(Manifest.FailedSource::sourceIndex, Manifest.FailedSource::source,
                    Manifest.FailedSource::reason).isEqualTo(expected.failed().stream()
                    .map(f -> org.assertj.core.groups.Tuple.tuple(f.sourceIndex(), f.source(), f.reason())).toList());
            assertThat(actual.failedCount()).isEqualTo(expected.failedCount()).isPositive(); // damaged files: listed, not fatal
            assertThat(got.size()).isEqualTo(want.size()).isEqualTo(actual.sourceCount() - actual.failedCount());
            assertThat(want.samples()).as("captions").anySatisfy(w -> assertThat(w.text()).isPresent());
            for (int i = 0; i < want.size(); i++) {
                SampleInfo w = want.sample(i);
                SampleInfo g = got.sample(i);
                assertThat(List.of(g.sourceIndex(), g.label(), g.frameCount(), g.width(), g.height(), g.text()))
                        .as(w.sourcePath().toString())
                        .isEqualTo(List.of(w.sourceIndex(), w.label(), w.frameCount(), w.width(), w.height(), w.text()));
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
