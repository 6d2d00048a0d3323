package dev.stoker.store.remote;

import static dev.stoker.store.remote.RemoteShardReadTest.SPECS;
import static dev.stoker.store.remote.RemoteShardReadTest.assertSameClips;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import java.io.IOException;
import java.nio.file.Path;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Shards of the real sample videos published to a real S3 server in this JVM (s3proxy on a temp folder) give, byte
 * for byte, the clips the local folder gives, downloading only the clips' GOPs; a second publish sends nothing.
 */
class S3ShardReadTest {
    @RegisterExtension
    final S3ProxyExtension s3 = S3ProxyExtension.builder().withBlobStoreProvider("filesystem-nio2")
            .withCredentials("stoker", "stoker-secret").build();

    @Test
    void clipsFromS3EqualClipsFromTheLocalFolderAndOnlyTheirGopsAreDownloaded() throws IOException {
        Path local = SharedSampleShards.folder();
        S3BlobStore.Settings settings = new S3BlobStore.Settings(s3.getUri(), "us-east-1",
                StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.getAccessKey(), s3.getSecretKey())));
        createBucket(settings, "videos");
        ShardUpload.Result first;
        ShardUpload.Result again;
        try (BlobStore store = S3BlobStore.open("s3://videos/train/shards", settings, Retry.standard())) {
            first = ShardUpload.publish(local, store);
            again = ShardUpload.publish(local, store);
            assertThat(store.list()).contains(ShardDataset.MANIFEST).hasSize(first.shardsUploaded() + 2);
        }
        assertThat(first.shardsUploaded()).isGreaterThan(1);
        assertThat(again.shardsUploaded()).as("a rerun finds every shard in place").isZero();
        assertThat(again.shardsKept()).isEqualTo(first.shardsUploaded());

        try (ShardDataset remote = ShardDataset.open(S3BlobStore.open("s3://videos/train/shards/", settings, Retry.standard()),
                Verification.FIRST_READ)) {
            assertThat(remote.isRemote()).isTrue();
            int clips = assertSameClips(local, remote);
            BlobStore.Stats stats = remote.remoteStats();
            long shardBytes = remote.manifest().shards().stream().mapToLong(s -> s.fileBytes()).sum();
            // Each clip reads from a keyframe to its last frame: far less than the shards, in few requests.
            assertThat(stats.bytesRead()).isLessThan(shardBytes * SPECS.size() / 2);
            assertThat(stats.requests()).isLessThan(clips * 3L + remote.manifest().shards().size() * 3L + 1);
            assertThat(stats.retries()).isZero();
        }
    }

    static void createBucket(S3BlobStore.Settings settings, String bucket) {
        try (S3Client s3 = S3Client.builder().endpointOverride(settings.endpoint()).forcePathStyle(true)
                .region(Region.of(settings.region())).credentialsProvider(settings.credentials())
                .httpClientBuilder(ApacheHttpClient.builder()).build()) {
            s3.createBucket(b -> b.bucket(bucket));
        }
    }
}
