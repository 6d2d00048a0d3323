package dev.stoker.spark;

import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.ShardFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The dataset's manifest out of the partitions' manifests, in partition order: shard files named from the
 * destination's root, sample rows pointing at the merged shard list, failures concatenated, counts summed. Source
 * indices are already the whole dataset's (each partition ingests its range of the one sorted list), so the merged
 * manifest reads as one ingest's.
 */
final class ManifestMerge {
    private ManifestMerge() {
    }

    static ShardFile.Summary renamed(ShardFile.Summary s, String file) {
        return new ShardFile.Summary(file, s.firstSource(), s.endSource(), s.records(), s.samples(), s.failed(),
                s.fileBytes(), s.payloadBytes(), s.indexCrc32c());
    }

    static Manifest withShards(Manifest m, List<ShardFile.Summary> shards) {
        return new Manifest(m.formatVersion(), m.format(), m.options(), m.classNames(), m.sourceCount(), m.sampleCount(),
                m.failedCount(), m.payloadBytes(), shards, m.samples(), m.failed());
    }

    /**
     * Merges {@code parts} (partition p's manifest, shard files relative to {@code folders.get(p)}).
     *
     * @throws IOException when a partition does not cover exactly its plan's sources (written by another plan)
     */
    static Manifest merge(IngestPlan plan, List<Manifest> parts) throws IOException {
        List<ShardFile.Summary> shards = new ArrayList<>();
        List<Manifest.SampleRow> rows = new ArrayList<>();
        List<Manifest.FailedSource> failed = new ArrayList<>();
        long payload = 0;
        Manifest first = parts.getFirst();
        for (int p = 0; p < parts.size(); p++) {
            Manifest part = parts.get(p);
            if (part.sourceCount() != plan.to(p) - plan.from(p) || !part.options().equals(first.options())
                    || (!part.shards().isEmpty() && part.shards().getFirst().firstSource() != plan.from(p))) {
                throw new IOException(IngestPlan.folder(p) + ": holds " + part.sourceCount() + " sources from "
                        + (part.shards().isEmpty() ? "?" : part.shards().getFirst().firstSource()) + " (expected: "
                        + (plan.to(p) - plan.from(p)) + " from " + plan.from(p) + " with the same options; a partition"
                        + " of another plan: delete the destination's parts/ and ingest again)");
            }
            int offset = shards.size();
            for (ShardFile.Summary s : part.shards()) {
                shards.add(renamed(s, IngestPlan.folder(p) + s.file()));
            }
            for (Manifest.SampleRow r : part.samples()) {
                rows.add(new Manifest.SampleRow(r.shard() + offset, r.record(), r.sourceIndex(), r.label(), r.frames(),
                        r.fps(), r.durationSeconds(), r.width(), r.height(), r.payloadBytes(), r.source(), r.text()));
            }
            failed.addAll(part.failed());
            payload += part.payloadBytes();
        }
        return new Manifest(first.formatVersion(), first.format(), first.options(), first.classNames(), plan.sourceCount(),
                rows.size(), failed.size(), payload, shards, rows, failed);
    }
}
