package dev.stoker.serve.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.internal.Retry;
import dev.stoker.store.remote.S3BlobStore;
import dev.stoker.store.remote.S3Server;
import dev.stoker.store.remote.internal.ShardUpload;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session serving shards from {@code s3://} (s3proxy in this JVM) reads them in place and serves, batch for batch,
 * the bytes a session serves from the same shards on local disk: what {@code stoker.torch.VideoLoader("s3://…")}
 * gets.
 */
class ServeRemoteShardsTest {
    @RegisterExtension
    final S3ProxyExtension s3 = S3Server.extension();

    @TempDir
    Path tmp;

    @AfterEach
    void clear() {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        System.clearProperty("aws.region");
    }

    @Test
    void shardsInS3AreServedAsTheSameShardsOnDisk() throws Exception {
        Path videos = DemoDataset.create(tmp.resolve("demo"), DemoSpec.small(2, 3, 2.0));
        Path shards = tmp.resolve("shards");
        Ingest.run(Dataset.open(videos), shards, IngestOptions.defaults().withShortSide(64).withShardSize(16L << 10), 2,
                IngestListener.NONE);
        S3BlobStore.Settings settings = S3Server.settings(s3, s3.getUri());
        S3Server.createBucket(settings, "served");
        String location = "s3://served/shards";
        try (BlobStore store = S3BlobStore.open(location, settings, Retry.standard())) {
            ShardUpload.publish(shards, store);
        }
        // The session's own client takes its credentials from the usual AWS settings, as on a training machine.
        System.setProperty("aws.accessKeyId", s3.getAccessKey());
        System.setProperty("aws.secretAccessKey", s3.getSecretKey());
        System.setProperty("aws.region", "us-east-1");

        SharedMemoryDir shm = new SharedMemoryDir(Files.createDirectories(tmp.resolve("shm")));
        List<byte[]> local = ServeDriver.firstEpoch(
                new ServeSettings(shards, ServeSessionTest.options(), 2, 0, shm, null, -1));
        List<byte[]> remote = ServeDriver.firstEpoch(
                new ServeSettings(location, s3.getUri(), null, ServeSessionTest.options(), 2, 0, shm, null, -1));

        assertThat(local).isNotEmpty();
        assertThat(remote).hasSameSizeAs(local);
        for (int i = 0; i < local.size(); i++) {
            assertThat(remote.get(i)).as("batch %d", i).isEqualTo(local.get(i));
        }
    }
}
