package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.store.remote.S3Server;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code stoker ingest} and {@code bench} on {@code s3://} locations of a real S3 server in this JVM (s3proxy),
 * credentials from the usual AWS settings (here system properties), {@code --s3-endpoint} naming the server: videos
 * in a bucket are ingested into shards in a bucket, and bench, headspace and train read those shards with ranged GETs.
 */
class RemoteStoreCommandsTest {
    @RegisterExtension
    final S3ProxyExtension s3 = S3Server.extension();

    @TempDir
    Path source;

    /** Unique per run: the cache folders are named by location, and a test must not find an earlier run's. */
    private final String bucket = "stoker-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void credentials() {
        System.setProperty("aws.accessKeyId", s3.getAccessKey());
        System.setProperty("aws.secretAccessKey", s3.getSecretKey());
        System.setProperty("aws.region", "us-east-1");
    }

    @AfterEach
    void clear() throws IOException {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        System.clearProperty("aws.region");
        for (String location : List.of("s3://" + bucket + "/videos", "s3://" + bucket + "/shards",
                "s3://" + bucket + "/wds", "s3://" + bucket + "/wds/train-{000000..000000}.tar")) {
            for (String kind : List.of("remote", "ingest")) {
                Path copy = LoaderOptionsMixin.cacheDir().resolve(kind).resolve(RemoteLocations.hash(location));
                if (Files.isDirectory(copy)) {
                    try (Stream<Path> files = Files.walk(copy)) {
                        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            Files.delete(p);
                        }
                    }
                }
            }
        }
    }

    @Test
    void ingestFromAndToS3ThenBenchTheShardsInS3() throws IOException {
        DemoDataset.create(source, DemoSpec.small(2, 2, 2.0));
        List<Path> videos;
        try (Stream<Path> files = Files.walk(source)) {
            videos = files.filter(Files::isRegularFile).filter(p -> p.getParent() != null && !p.getParent().equals(source)).toList();
        }
        try (S3Client client = S3Server.client(S3Server.settings(s3, s3.getUri()))) {
            client.createBucket(b -> b.bucket(bucket));
            for (Path video : videos) {
                String key = "videos/" + source.relativize(video).toString().replace('\\', '/');
                client.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromFile(video));
            }
        }
        String endpoint = s3.getUri().toString();
        String shards = "s3://" + bucket + "/shards";

        CliRun ingest = CliRun.stoker("ingest", "s3://" + bucket + "/videos", shards, "--s3-endpoint", endpoint,
                "--format", "video", "--size", "112", "--shard-size", "64k", "--workers", "2");
        assertThat(ingest.exitCode()).as(ingest.err() + ingest.out()).isZero();
        assertThat(ingest.out()).contains("4 files: 4 downloaded").contains("ingested 4 of 4 sources")
                .contains("uploaded to " + shards).contains("manifest last");

        CliRun bench = CliRun.stoker("bench", shards, "--s3-endpoint", endpoint, "--batches", "2", "--batch", "2",
                "--frames", "4");
        assertThat(bench.exitCode()).as(bench.err() + bench.out()).isZero();
        assertThat(bench.out()).contains("video shards in " + shards).contains("samples/s").containsPattern("remote +\\d+ requests");

        // headspace and train read the same shards in place (no copy into the cache, as for remote videos).
        CliRun headspace = CliRun.stoker("headspace", shards, "--s3-endpoint", endpoint, "--step-ms", "5", "--cache", "2",
                "--warmup", "1", "--steps", "3", "--batch", "2", "--frames", "4");
        assertThat(headspace.exitCode()).as(headspace.err() + headspace.out()).isZero();
        assertThat(headspace.out()).contains(shards + ": 4 samples").doesNotContain("copying the videos");
        CliRun train = CliRun.stoker("train", shards, "--s3-endpoint", endpoint, "--width", "0.0625", "--steps", "3",
                "--warmup", "1", "--cache", "2", "--floor-steps", "0", "--frames", "4", "--size", "32", "--batch", "2");
        assertThat(train.exitCode()).as(train.err() + train.out()).isZero();
        assertThat(train.out()).contains(shards + ": 4 samples, 2 classes").doesNotContain("copying the videos");

        // Through a block cache: the rerun finds every block on disk (its only requests read the manifest).
        Path cache = source.resolve("block-cache");
        for (String expected : List.of("fetched ahead", "hit rate 100.0%")) {
            CliRun cached = CliRun.stoker("bench", shards, "--s3-endpoint", endpoint, "--batches", "2", "--batch", "2",
                    "--frames", "4", "--cache-dir", cache.toString(), "--cache-bytes", "64M");
            assertThat(cached.exitCode()).as(cached.err() + cached.out()).isZero();
            assertThat(cached.out()).containsPattern("cache +hit rate").contains(expected);
            if (expected.startsWith("hit rate")) {
                assertThat(cached.out()).containsPattern("remote +2 requests");
            }
        }
        CliRun tooSmall = CliRun.stoker("bench", shards, "--s3-endpoint", endpoint, "--batches", "2", "--batch", "2",
                "--frames", "4", "--cache-dir", cache.toString(), "--cache-bytes", "300k");
        assertThat(tooSmall.exitCode()).isEqualTo(1);
        assertThat(tooSmall.err()).contains("cache budget 307200 bytes is below one batch's working set");

        CliRun again = CliRun.stoker("ingest", "s3://" + bucket + "/videos", shards, "--s3-endpoint", endpoint,
                "--format", "video", "--size", "112", "--shard-size", "64k", "--workers", "2");
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("4 already there").contains("0 written").contains("uploaded to " + shards + ": 0 shards");
    }

    @Test
    void webDatasetArchivesInS3AreCopiedWholeAndReadInPlace() throws Exception {
        DemoDataset.create(source.resolve("demo"), DemoSpec.small(2, 2, 2.0));
        Path archive = source.resolve("train-000000.tar");
        Process tar = new ProcessBuilder("tar", "-cf", archive.toString(), "-C", source.resolve("demo").toString(), ".")
                .inheritIO().start();
        assertThat(tar.waitFor()).isZero();
        try (S3Client client = S3Server.client(S3Server.settings(s3, s3.getUri()))) {
            client.createBucket(b -> b.bucket(bucket));
            for (String key : List.of("wds/train-000000.tar", "wds/train-000001.tar")) {
                client.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromFile(archive));
            }
            client.putObject(r -> r.bucket(bucket).key("wds/README.md"), RequestBody.fromString("not a shard"));
        }
        CliRun bench = CliRun.stoker("bench", "s3://" + bucket + "/wds", "--s3-endpoint", s3.getUri().toString(),
                "--batches", "2", "--batch", "2", "--frames", "4", "--size", "32", "--no-reference");
        assertThat(bench.exitCode()).as(bench.err() + bench.out()).isZero();
        assertThat(bench.out()).contains("2 files: 2 downloaded").contains("samples/s");
        // WebDataset's URL pattern names the archives to take: one here.
        CliRun named = CliRun.stoker("bench", "s3://" + bucket + "/wds/train-{000000..000000}.tar", "--s3-endpoint",
                s3.getUri().toString(), "--batches", "2", "--batch", "2", "--frames", "4", "--size", "32", "--no-reference");
        assertThat(named.exitCode()).as(named.err() + named.out()).isZero();
        assertThat(named.out()).contains("1 files: 1 downloaded").contains("samples/s");
    }
}
