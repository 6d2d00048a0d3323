package dev.stoker.store.remote;

import static dev.stoker.store.remote.RemoteShardReadTest.SPECS;
import static dev.stoker.store.remote.RemoteShardReadTest.assertSameClips;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.store.remote.internal.Retry;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.internal.ShardUpload;
import java.io.IOException;
import java.nio.file.Path;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shards of the real sample videos published to a real S3 server in this JVM (s3proxy on a temp folder) give, byte
 * for byte, the clips the local folder gives, downloading only the clips' GOPs; a second publish sends nothing.
 */
class S3ShardReadTest {
    @RegisterExtension
    final S3ProxyExtension s3 = S3Server.extension();

    @Test
    void clipsFromS3EqualClipsFromTheLocalFolderAndOnlyTheirGopsAreDownloaded() throws IOException {
        Path local = SampleShards.folder();
        S3BlobStore.Settings settings = S3Server.settings(s3, s3.getUri());
        S3Server.createBucket(settings, "videos");
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

}
