package dev.stoker.store.remote;

import static dev.stoker.store.remote.RemoteShardReadTest.RESIZE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.store.ClipReader;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.internal.Retry;
import dev.stoker.video.ClipRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A remote shard's payload buffer is freed by the GC, and the video decoding it holds only its address: the reader
 * keeps it alive until the decode is done. Many reads, compiled hot, with the GC running all the while, give the
 * same pixels every time (a payload freed too early crashes the JVM or changes them).
 */
@Timeout(600)   // a hang fails it; a read under constant GC on a loaded 2-core machine can take seconds
class RemotePayloadLifetimeTest {
    @Test
    void payloadsOutliveTheirDecodeUnderConstantGc() throws Exception {
        Path local = SampleShards.folder();
        ClipSpec spec = ClipSpec.frames(0, 8, 2);
        AtomicBoolean done = new AtomicBoolean();
        Thread gc = Thread.ofPlatform().daemon().start(() -> {
            while (!done.get()) {
                System.gc();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try (FolderHttpServer server = new FolderHttpServer(local, true);
             ShardDataset remote = ShardDataset.open(HttpBlobStore.open(server.uri(), Retry.standard()), Verification.FIRST_READ);
             ClipReader reader = remote.newReader(); Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate((long) spec.frameCount() * RESIZE.width() * RESIZE.height() * 3);
            // A read under constant GC takes most of a second on a loaded 2-core machine: 12 samples, 12 rounds.
            long[] first = new long[Math.min(remote.size(), 12)];
            for (int round = 0; round < 12; round++) {
                for (int i = 0; i < first.length; i++) {
                    reader.read(i, new ClipRequest(spec, RESIZE, into));
                    CRC32 crc = new CRC32();
                    crc.update(into.asByteBuffer());
                    if (round == 0) {
                        first[i] = crc.getValue();
                    } else {
                        assertThat(crc.getValue()).as("sample %d, round %d", i, round).isEqualTo(first[i]);
                    }
                }
            }
        } finally {
            done.set(true);
            gc.join();
        }
    }
}
