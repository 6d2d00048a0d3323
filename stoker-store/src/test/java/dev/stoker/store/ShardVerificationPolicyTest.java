package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.internal.ShardVerifier;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.video.ClipRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each {@link Verification} catches. Damage present when a packet is first read fails every read of it
 * under both (a failed check is never remembered); damage that appears after a packet passed is caught on the
 * next read by {@link Verification#EVERY_READ}, by {@link Verification#FIRST_READ} only once the dataset is
 * opened again, and by {@code stoker verify} always. The shard is changed under its live mapping (the page
 * cache is shared, so the mapping sees the write): a device returning other bytes after an eviction.
 */
class ShardVerificationPolicyTest {
    @TempDir
    Path dest;

    @Test
    void damageAfterAPassedCheckIsCaughtOnlyWhereThePolicySays() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        try (ShardDataset first = ShardDataset.open(dest);
             ShardDataset every = ShardDataset.open(dest, Verification.EVERY_READ);
             ClipReader firstReader = first.newReader(); ClipReader everyReader = every.newReader();
             Arena arena = Arena.ofConfined()) {
            assertThat(first.verification()).isEqualTo(Verification.FIRST_READ);
            MemorySegment out = arena.allocate(4L * 112 * 112 * 3);
            ClipRequest clip = new ClipRequest(ClipSpec.frames(0, 4, 1), Resize.centerCrop(112, 112, 112), out);
            firstReader.read(1, clip); // both check frames 0..3 of sample 1 and pass
            everyReader.read(1, clip);

            flipByteOfFrame(first, 1, 0);

            firstReader.read(1, clip); // checked once already: trusted
            assertThatThrownBy(() -> everyReader.read(1, clip)).isInstanceOf(ShardException.class)
                    .hasMessageContaining("frame 0").hasMessageContaining("checksum");
            try (ShardDataset reopened = ShardDataset.open(dest); ClipReader reader = reopened.newReader()) {
                assertThatThrownBy(() -> reader.read(1, clip)).isInstanceOf(ShardException.class)
                        .hasMessageContaining("frame 0");
            }
        }
        assertThat(ShardVerifier.verify(dest).damages()).singleElement()
                .satisfies(d -> assertThat(d.problem()).contains("checksum"));
    }

    @Test
    void aPacketThatFailedFailsEveryReadUnderFirstRead() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        try (ShardDataset shards = ShardDataset.open(dest)) {
            flipByteOfFrame(shards, 2, 1);
        }
        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4L * 112 * 112 * 3);
            ClipRequest clip = new ClipRequest(ClipSpec.frames(0, 4, 1), Resize.centerCrop(112, 112, 112), out);
            for (int attempt = 0; attempt < 3; attempt++) {
                assertThatThrownBy(() -> reader.read(2, clip)).as("attempt %d", attempt)
                        .isInstanceOf(ShardException.class).hasMessageContaining("frame 1");
            }
            assertThatThrownBy(() -> reader.locate(2, List.of(clip.spec()), List.of(clip.resize())))
                    .isInstanceOf(ShardException.class).hasMessageContaining("frame 1");
        }
    }

    private void flipByteOfFrame(ShardDataset shards, int sample, int frame) throws IOException {
        RecordEntry entry = ShardDatasetAccess.entry(shards, sample);
        long at = entry.payloadOffset() + entry.offsets()[frame] + 100;
        try (RandomAccessFile file = new RandomAccessFile(dest.resolve(shards.sample(sample).shard()).toFile(), "rw")) {
            file.seek(at);
            int b = file.read();
            file.seek(at);
            file.write(b ^ 0xFF);
        }
    }
}
