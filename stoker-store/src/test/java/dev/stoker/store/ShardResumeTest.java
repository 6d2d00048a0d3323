package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.shard.internal.ShardLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted ingest resumes: rerunning after a kill (simulated: a finished shard lost, a half-written
 * temporary file left, no manifest) keeps the finished shards, writes only the missing one, and ends
 * with the same bytes, file for file, as an uninterrupted run.
 */
class ShardResumeTest {
    @TempDir
    Path whole;
    @TempDir
    Path interrupted;

    @Test
    void resumedIngestEqualsAnUninterruptedOne() throws IOException {
        Ingest.Result first = DemoSource.ingest(whole, IngestOptions.Format.VIDEO);
        assertThat(first.shardsWritten()).isGreaterThanOrEqualTo(3);
        DemoSource.ingest(interrupted, IngestOptions.Format.VIDEO);
        List<Path> shards = shards(interrupted);
        Path lost = shards.get(1);
        Files.delete(lost);
        Files.delete(interrupted.resolve(ShardDataset.MANIFEST));
        Files.write(interrupted.resolve(ShardLayout.tempName(lost.getFileName().toString())), new byte[] {1, 2, 3});

        List<String> discarded = new CopyOnWriteArrayList<>();
        Ingest.Result resumed = Ingest.run(DemoSource.dataset(), interrupted, DemoSource.options(IngestOptions.Format.VIDEO), 2,
                new IngestListener() {
                    @Override
                    public void discarded(String shard, String reason) {
                        discarded.add(shard + ": " + reason);
                    }
                });
        assertThat(discarded).isEmpty();
        assertThat(resumed.shardsWritten()).isEqualTo(1);
        assertThat(resumed.shardsReused()).isEqualTo(first.shardsWritten() - 1);
        assertThat(contents(interrupted)).isEqualTo(contents(whole));
    }

    @Test
    void shardsWrittenWithOtherOptionsAreRedone() throws IOException {
        DemoSource.ingest(interrupted, IngestOptions.Format.VIDEO);
        Files.delete(interrupted.resolve(ShardDataset.MANIFEST));
        List<String> discarded = new CopyOnWriteArrayList<>();
        Ingest.Result redone = Ingest.run(DemoSource.dataset(), interrupted,
                DemoSource.options(IngestOptions.Format.VIDEO).withGop(8), 2, new IngestListener() {
                    @Override
                    public void discarded(String shard, String reason) {
                        discarded.add(reason);
                    }
                });
        assertThat(redone.shardsReused()).isZero();
        assertThat(discarded).isNotEmpty().allMatch(r -> r.contains("other options"));
    }

    static List<Path> shards(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> ShardLayout.isShardName(p.getFileName().toString())).sorted().toList();
        }
    }

    /** Every file's bytes by name, hidden files included (a leftover temporary file would show). */
    static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> map = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : new ArrayList<>(files.toList())) {
                map.put(file.getFileName().toString(), java.util.HexFormat.of().formatHex(
                        java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return map;
    }
}
