package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.internal.ShardVerifier;
import dev.stoker.store.shard.internal.ShardLayout;
import dev.stoker.video.ClipRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage is found and named: a flipped payload byte fails its checksum (verify names shard and record,
 * reading that sample fails with a {@link ShardException}, other samples read fine), a damaged index
 * entry and a truncated shard are reported likewise, and an intact ingest verifies clean.
 */
class ShardDamageTest {
    @TempDir
    Path dest;

    @Test
    void intactShardsVerifyClean() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
        ShardVerifier.Report report = ShardVerifier.verify(dest);
        assertThat(report.damages()).isEmpty();
        assertThat(report.records()).isEqualTo(4);
    }

    @Test
    void flippedPayloadByteFailsItsChecksumAndOnlyThatSample() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        SampleInfo victim = sample(1);
        flip(dest.resolve(victim.shard()), payloadOffsetOf(victim) + 100); // a byte inside frame 0 of sample 1

        ShardVerifier.Report report = ShardVerifier.verify(dest);
        assertThat(report.damages()).hasSize(1);
        ShardVerifier.Damage damage = report.damages().getFirst();
        assertThat(damage.shard()).isEqualTo(victim.shard());
        assertThat(damage.record()).isEqualTo(victim.record());
        assertThat(damage.toString()).contains("checksum").contains(victim.sourcePath().getFileName().toString());

        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4L * 112 * 112 * 3);
            ClipRequest request = new ClipRequest(ClipSpec.frames(0, 4, 1), Resize.centerCrop(112, 112, 112), out);
            assertThatThrownBy(() -> reader.read(1, request))
                    .isInstanceOfSatisfying(ShardException.class, e -> {
                        assertThat(e.reason()).isEqualTo(ShardException.Reason.CHECKSUM);
                        assertThat(e.shard()).isEqualTo(victim.shard());
                        assertThat(e.record()).isEqualTo(victim.record());
                    })
                    .hasMessageContaining("frame 0");
            // a clip not touching the damaged frame still reads, and so do other samples
            reader.read(1, new ClipRequest(ClipSpec.frames(1.0, 4, 1), Resize.centerCrop(112, 112, 112), out));
            reader.read(0, request);
            reader.read(2, request);
        }
    }

    @Test
    void damagedIndexEntryAndTruncatedShardAreNamed() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.VIDEO);
        Path first = dest.resolve(sample(0).shard());
        Path last = dest.resolve(sample(-1).shard());
        // the first index entry starts right after the records: find it from the footer
        try (RandomAccessFile file = new RandomAccessFile(first.toFile(), "rw")) {
            file.seek(file.length() - 48 + 8);
            long indexOffset = file.readLong();
            flipAt(file, indexOffset + 4 + 10); // inside entry 0's bytes (its source path)
        }
        try (RandomAccessFile file = new RandomAccessFile(last.toFile(), "rw")) {
            file.setLength(file.length() - 20);
        }
        ShardVerifier.Report report = ShardVerifier.verify(dest);
        assertThat(report.damages()).anySatisfy(d -> {
            assertThat(d.shard()).isEqualTo(first.getFileName().toString());
            assertThat(d.record()).isEqualTo(0);
            assertThat(d.problem()).contains("index entry checksum");
        });
        assertThat(report.damages()).anySatisfy(d -> {
            assertThat(d.shard()).isEqualTo(last.getFileName().toString());
            assertThat(d.problem()).contains("truncated");
        });
        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4L * 112 * 112 * 3);
            ClipRequest request = new ClipRequest(ClipSpec.frames(0, 4, 1), Resize.centerCrop(112, 112, 112), out);
            assertThatThrownBy(() -> reader.read(0, request)).isInstanceOf(ShardException.class)
                    .hasMessageContaining(first.getFileName().toString()).hasMessageContaining("record 0");
            assertThatThrownBy(() -> reader.read(shards.size() - 1, request)).isInstanceOf(ShardException.class)
                    .hasMessageContaining(last.getFileName().toString()).hasMessageContaining("truncated");
        }
    }

    @Test
    void shardFromAnotherVersionIsRefusedByName() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        Path shard = dest.resolve(sample(0).shard());
        try (RandomAccessFile file = new RandomAccessFile(shard.toFile(), "rw")) {
            file.seek(8);
            file.writeInt(ShardLayout.FORMAT_VERSION + 1);
        }
        assertThat(ShardVerifier.verify(dest).damages()).anySatisfy(d -> assertThat(d.problem()).contains("format version"));
    }

    @Test
    void aManifestRowThatDisagreesWithItsRecordIsNamed() throws IOException {
        // Checksums all hold; the manifest says 3000 frames where the record holds the sample's real count.
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
        SampleInfo second = sample(1);
        Path manifest = dest.resolve(ShardDataset.MANIFEST);
        ObjectMapper json = new ObjectMapper();
        JsonNode tree = json.readTree(manifest.toFile());
        ((ObjectNode) tree.get("samples").get(1)).put("frames", 3000);
        json.writeValue(manifest.toFile(), tree);
        assertThat(ShardVerifier.verify(dest).damages()).singleElement().satisfies(d -> {
            assertThat(d.shard()).isEqualTo(second.shard());
            assertThat(d.record()).isEqualTo(second.record());
            assertThat(d.problem()).isEqualTo("inconsistent: the record holds " + second.frameCount() + " frames of "
                    + second.width() + "x" + second.height() + " (expected: 3000 frames of " + second.width() + "x"
                    + second.height() + " as the manifest says)");
        });
    }

    /** Sample {@code index} of the ingested shards; -1 for the last. */
    private SampleInfo sample(int index) throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            return shards.sample(index < 0 ? shards.size() + index : index);
        }
    }

    private long payloadOffsetOf(SampleInfo info) throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            return shards.shardOf(info).entry(info.record()).payloadOffset();
        }
    }

    private static void flip(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            flipAt(f, at);
        }
    }

    private static void flipAt(RandomAccessFile file, long at) throws IOException {
        file.seek(at);
        int b = file.read();
        file.seek(at);
        file.write(b ^ 0x5A);
    }

    static boolean exists(Path p) {
        return Files.exists(p);
    }
}
