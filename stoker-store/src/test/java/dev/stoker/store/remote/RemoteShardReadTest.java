package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.ClipReader;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.FolderHttpServer.Fault;
import dev.stoker.store.remote.internal.Retry;
import dev.stoker.video.ClipRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Shards of the real sample videos read over HTTP give, byte for byte, the clips the local folder gives: from the
 * JDK's HTTP server with and without {@code Range} support, and through 503s, bodies cut short and well-formed
 * answers shorter than asked (retried, never used). A server that stays down is a clear error naming the object, not a hang. (S3: {@link S3ShardReadTest}.)
 */
class RemoteShardReadTest {
    static final List<ClipSpec> SPECS = List.of(ClipSpec.frames(0, 8, 2), ClipSpec.frames(0.6, 4, 3));
    static final Resize RESIZE = Resize.centerCrop(96, 64, 64);

    @ParameterizedTest(name = "range support {0}")
    @ValueSource(booleans = {true, false})
    void clipsOverHttpEqualClipsFromTheLocalFolder(boolean ranges) throws IOException {
        Path local = SampleShards.folder();
        try (FolderHttpServer server = new FolderHttpServer(local, ranges);
             ShardDataset remote = ShardDataset.open(HttpBlobStore.open(server.uri(), Retry.standard()), Verification.FIRST_READ)) {
            assertSameClips(local, remote);
            long shardBytes = remote.manifest().shards().stream().mapToLong(s -> s.fileBytes()).sum();
            if (ranges) {
                assertThat(remote.remoteStats().bytesRead()).isLessThan(shardBytes);
            } else {
                // A server that ignores Range sends whole shards: slower, still exact.
                assertThat(remote.remoteStats().bytesRead()).isGreaterThan(shardBytes);
            }
        }
    }

    @Test
    void unavailableAnswersAndCutBodiesAreRetriedNeverUsed() throws IOException {
        Path local = SampleShards.folder();
        Retry fast = new Retry(8, Duration.ofMillis(1), Duration.ofMillis(20));
        try (FolderHttpServer server = new FolderHttpServer(local, true)
                .failEvery(Fault.UNAVAILABLE, 3).failEvery(Fault.TRUNCATED, 7).failEvery(Fault.SHORT, 5);
             ShardDataset remote = ShardDataset.open(HttpBlobStore.open(server.uri(), fast), Verification.FIRST_READ)) {
            assertSameClips(local, remote);
            assertThat(server.faults.get()).isGreaterThan(5);
            assertThat(remote.remoteStats().retries()).isGreaterThanOrEqualTo(server.faults.get() - 1);
        }
    }

    @Test
    void aServerThatStaysDownIsAClearErrorNamingTheObject() throws IOException {
        Path local = SampleShards.folder();
        Retry fast = new Retry(3, Duration.ofMillis(1), Duration.ofMillis(5));
        try (FolderHttpServer server = new FolderHttpServer(local, true)) {
            URI uri = server.uri();
            try (ShardDataset remote = ShardDataset.open(HttpBlobStore.open(uri, fast), Verification.FIRST_READ);
                 ClipReader reader = remote.newReader(); Arena arena = Arena.ofConfined()) {
                server.failEvery(Fault.UNAVAILABLE, 1);
                SampleInfo sample = remote.sample(0);
                MemorySegment into = arena.allocate(clipBytes(SPECS.getFirst()));
                assertThatThrownBy(() -> reader.read(0, new ClipRequest(SPECS.getFirst(), RESIZE, into)))
                        .isInstanceOf(ShardException.class)
                        .hasMessageContaining(sample.shard())
                        .hasMessageContaining("HTTP 503")
                        .hasMessageContaining("gave up after 3 attempts")
                        .satisfies(e -> assertThat(((ShardException) e).failureReason()).isEqualTo("shard-io-error"));
            }
            assertThatThrownBy(() -> ShardDataset.open(HttpBlobStore.open(uri, fast), Verification.FIRST_READ))
                    .isInstanceOf(IOException.class).hasMessageContaining(ShardDataset.MANIFEST).hasMessageContaining("503");
        }
    }

    @Test
    void aFolderWithoutAManifestIsNotADataset() throws IOException {
        Path empty = Files.createTempDirectory("stoker-no-shards");
        try (FolderHttpServer server = new FolderHttpServer(empty, true)) {
            assertThatThrownBy(() -> ShardDataset.open(HttpBlobStore.open(server.uri(), Retry.standard()), Verification.FIRST_READ))
                    .isInstanceOf(java.nio.file.NoSuchFileException.class)
                    .hasMessageContaining(server.uri().toString()).hasMessageContaining("finished stoker ingest");
        } finally {
            Files.delete(empty);
        }
    }

    /** Reads every sample's clips from both and compares frames and pixels; returns the clips read. */
    static int assertSameClips(Path local, ShardDataset remote) throws IOException {
        int clips = 0;
        try (ShardDataset mapped = ShardDataset.open(local); ClipReader a = mapped.newReader(); ClipReader b = remote.newReader();
             Arena arena = Arena.ofConfined()) {
            assertThat(remote.size()).isEqualTo(mapped.size()).isGreaterThan(20);
            for (int i = 0; i < mapped.size(); i++) {
                for (ClipSpec spec : SPECS) {
                    MemorySegment want = arena.allocate(clipBytes(spec));
                    MemorySegment got = arena.allocate(clipBytes(spec));
                    DecodedClip expected = a.read(i, new ClipRequest(spec, RESIZE, want));
                    DecodedClip actual = b.read(i, new ClipRequest(spec, RESIZE, got));
                    String what = mapped.sample(i).sourcePath() + " " + spec;
                    assertThat(actual.frameIndices()).as(what).isEqualTo(expected.frameIndices());
                    assertThat(got.mismatch(want)).as(what + ": first differing byte").isEqualTo(-1);
                    clips++;
                }
            }
        }
        return clips;
    }

    private static long clipBytes(ClipSpec spec) {
        return (long) spec.frameCount() * RESIZE.width() * RESIZE.height() * 3;
    }
}
