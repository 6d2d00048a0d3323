package dev.stoker.store.internal;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.store.shard.internal.ShardLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks every checksum of an ingested folder: each shard's header, footer and index, each index entry,
 * each sample payload and each of its packets, and that the manifest agrees with the shards. Reads
 * every byte once.
 */
public final class ShardVerifier {

    /** One damaged thing: a shard (record -1) or a record of it. */
    public record Damage(String shard, int record, String source, String problem) {
        @Override
        public String toString() {
            return shard + (record >= 0 ? " record " + record : "") + (source.isEmpty() ? "" : " (" + source + ")")
                    + ": " + problem;
        }
    }

    /** What was checked and what was found. */
    public record Report(int shards, int records, long bytes, List<Damage> damages) {
        public boolean intact() { return damages.isEmpty(); }
    }

    private ShardVerifier() {
    }

    public static Report verify(Path dest) throws IOException {
        Manifest manifest;
        try {
            manifest = Manifest.read(dest.resolve(ShardDataset.MANIFEST));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException(dest.resolve(ShardDataset.MANIFEST) + ": does not exist", e);
        }
        List<Damage> damages = new ArrayList<>();
        if (manifest.formatVersion() != ShardLayout.FORMAT_VERSION) {
            damages.add(new Damage(ShardDataset.MANIFEST, -1, "", "format version " + manifest.formatVersion()
                    + " (expected: " + ShardLayout.FORMAT_VERSION + ")"));
        }
        int records = 0;
        long bytes = 0;
        Map<Integer, List<Manifest.SampleRow>> rows = manifest.samples().stream()
                .collect(Collectors.groupingBy(Manifest.SampleRow::shard));
        for (int s = 0; s < manifest.shards().size(); s++) {
            ShardFile.Summary listed = manifest.shards().get(s);
            Path file = dest.resolve(listed.file());
            if (!Files.isRegularFile(file)) {
                damages.add(new Damage(listed.file(), -1, "", "missing"));
                continue;
            }
            try (Arena arena = Arena.ofConfined()) {
                ShardFile shard = ShardFile.map(file, arena);
                bytes += shard.fileBytes();
                try {
                    if (shard.fileBytes() != listed.fileBytes()) {
                        damages.add(new Damage(listed.file(), -1, "", shard.fileBytes() + " bytes (expected: "
                                + listed.fileBytes() + " as listed in the manifest)"));
                    }
                    if (shard.firstSource() != listed.firstSource() || shard.endSource() != listed.endSource()
                            || shard.entryCount() != listed.records()) {
                        damages.add(new Damage(listed.file(), -1, "", "covers sources " + shard.firstSource() + ".."
                                + shard.endSource() + " in " + shard.entryCount() + " records (expected: "
                                + listed.firstSource() + ".." + listed.endSource() + " in " + listed.records() + ")"));
                    }
                    if (!shard.indexIntact()) {
                        damages.add(new Damage(listed.file(), -1, "", "index checksum mismatch"));
                    }
                    for (int r = 0; r < shard.entryCount(); r++) {
                        records++;
                        checkRecord(shard, r, damages);
                    }
                    for (Manifest.SampleRow row : rows.getOrDefault(s, List.of())) {
                        RecordEntry entry;
                        try {
                            entry = shard.entry(row.record());
                        } catch (ShardException e) {
                            continue;   // a damaged entry: checkRecord named it
                        }
                        try {
                            agree(shard.name(), row.record(), entry, row.sourceIndex(), row.source(), row.frames(),
                                    row.width(), row.height());
                        } catch (ShardException e) {
                            damages.add(new Damage(shard.name(), row.record(), row.source(), e.problem()));
                        }
                    }
                } catch (ShardException e) {
                    damages.add(new Damage(listed.file(), e.record(), "", e.problem()));
                }
            }
        }
        return new Report(manifest.shards().size(), records, bytes, damages);
    }

    /**
     * Whether record {@code record}'s entry is the sample the manifest says: its source, frame count and size (what
     * readers size their buffers from). A {@link ShardException} naming both where they differ.
     */
    public static void agree(String shard, int record, RecordEntry entry, int sourceIndex, String sourcePath, int frames,
                             int width, int height) {
        if (entry.failed() || entry.sourceIndex() != sourceIndex) {
            throw new ShardException(shard, record, ShardException.Reason.INCONSISTENT, "the manifest says source "
                    + sourceIndex + " (" + sourcePath + ") but the record holds "
                    + (entry.failed() ? "a failed source " : "source ") + entry.sourceIndex());
        }
        if (entry.width() != width || entry.height() != height || entry.frameCount() != frames) {
            throw new ShardException(shard, record, ShardException.Reason.INCONSISTENT, "the record holds "
                    + entry.frameCount() + " frames of " + entry.width() + "x" + entry.height() + " (expected: "
                    + frames + " frames of " + width + "x" + height + " as the manifest says)");
        }
    }

    private static void checkRecord(ShardFile shard, int record, List<Damage> damages) {
        RecordEntry entry;
        try {
            entry = shard.entry(record);
        } catch (ShardException e) {
            damages.add(new Damage(shard.name(), record, "", e.problem()));
            return;
        }
        if (entry.failed()) {
            return;
        }
        try {
            MemorySegment payload = shard.payload(record, entry);
            shard.checkPayload(record, entry, payload);
        } catch (ShardException e) {
            damages.add(new Damage(shard.name(), record, entry.sourcePath(), e.problem()));
            return;
        }
        // The payload's checksum held, so every packet's holds too unless the index lies about them.
        MemorySegment payload = shard.payload(record, entry);
        for (int p = 0; p < entry.frameCount(); p++) {
            try {
                shard.checkPacket(record, entry, payload, p);
            } catch (ShardException e) {
                damages.add(new Damage(shard.name(), record, entry.sourcePath(), e.problem()));
                return;
            }
        }
    }
}
