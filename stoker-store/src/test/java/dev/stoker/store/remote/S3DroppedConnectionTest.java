package dev.stoker.store.remote;

import static dev.stoker.store.remote.RemoteShardReadTest.RESIZE;
import static dev.stoker.store.remote.RemoteShardReadTest.SPECS;
import static dev.stoker.store.remote.RemoteShardReadTest.assertSameClips;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.store.ClipReader;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.internal.Retry;
import dev.stoker.video.ClipRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real S3 server (s3proxy in this JVM) behind a proxy that drops connections in the middle of an object's body:
 * the reads are retried and the clips equal, byte for byte, those of the local folder, with and without the block
 * cache (which never keeps a cut block: read again without the proxy, every cached block passes its checksum);
 * a connection that always drops is a clear error naming the shard, after the retries, never a hang.
 */
@Timeout(180)
class S3DroppedConnectionTest {
    private static final String LOCATION = S3SampleShards.LOCATION;

    @RegisterExtension
    final S3SampleShards s3 = new S3SampleShards();

    @Test
    void connectionsDroppedMidObjectAreRetriedAndTheClipsAreExact() throws IOException {
        Retry fast = new Retry(8, Duration.ofMillis(1), Duration.ofMillis(20));
        try (DroppingProxy proxy = new DroppingProxy(s3.uri(), 3, 2000);
             ShardDataset remote = ShardDataset.open(S3BlobStore.open(LOCATION, s3.settings(proxy.uri()), fast),
                     Verification.FIRST_READ)) {
            assertSameClips(SampleShards.folder(), remote);
            assertThat(proxy.drops.get()).isGreaterThan(2);
            assertThat(remote.remoteStats().retries()).isGreaterThanOrEqualTo(proxy.drops.get() - 1L);
        }
    }

    @Test
    void theBlockCacheNeverKeepsABlockCutShort(@TempDir Path cacheDir) throws IOException {
        Retry fast = new Retry(8, Duration.ofMillis(1), Duration.ofMillis(20));
        BlockCache.Settings cache = new BlockCache.Settings(cacheDir, 64L << 20, 16 << 10);
        try (DroppingProxy proxy = new DroppingProxy(s3.uri(), 3, 2000);
             ShardDataset remote = ShardDataset.open(S3BlobStore.open(LOCATION, s3.settings(proxy.uri()), fast),
                     Verification.FIRST_READ, cache)) {
            assertSameClips(SampleShards.folder(), remote);
            assertThat(proxy.drops.get()).isGreaterThan(2);
        }
        try (ShardDataset again = ShardDataset.open(S3BlobStore.open(LOCATION, s3.settings(), Retry.standard()),
                Verification.FIRST_READ, cache)) {
            long atOpen = again.remoteStats().requests();
            assertSameClips(SampleShards.folder(), again);
            assertThat(again.blockCache().stats().corrupt()).isZero();
            assertThat(again.remoteStats().requests()).as("every block came from the cache").isEqualTo(atOpen);
        }
    }

    @Test
    void aConnectionThatAlwaysDropsIsAClearErrorNotAHang() throws IOException {
        Retry fast = new Retry(3, Duration.ofMillis(1), Duration.ofMillis(5));
        try (DroppingProxy proxy = new DroppingProxy(s3.uri(), Integer.MAX_VALUE, 6000);
             ShardDataset remote = ShardDataset.open(S3BlobStore.open(LOCATION, s3.settings(proxy.uri()), fast),
                     Verification.FIRST_READ);
             ClipReader reader = remote.newReader(); Arena arena = Arena.ofConfined()) {
            proxy.dropAll();
            String shard = remote.sample(0).shard();
            var into = arena.allocate((long) SPECS.getFirst().frameCount() * RESIZE.width() * RESIZE.height() * 3);
            assertThatThrownBy(() -> reader.read(0, new ClipRequest(SPECS.getFirst(), RESIZE, into)))
                    .isInstanceOf(ShardException.class)
                    .hasMessageContaining(shard)
                    .hasMessageContaining("gave up after 3 attempts")
                    .satisfies(e -> assertThat(((ShardException) e).failureReason()).isEqualTo("shard-io-error"));
            assertThat(proxy.drops.get()).isEqualTo(3);
        }
    }
}
