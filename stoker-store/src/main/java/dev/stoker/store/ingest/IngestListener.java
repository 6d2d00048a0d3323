package dev.stoker.store.ingest;

import dev.stoker.store.shard.ShardFile;

/** What an ingest reports while it runs (called from pipeline threads; implementations must be thread-safe). */
public interface IngestListener {
    /** Before any work: how many sources in all, and how many finished shards already cover. */
    default void planned(int sources, int reusedSources, int reusedShards) {
    }

    /** An existing shard that cannot be reused, and why (it is written again). */
    default void discarded(String shard, String reason) {
    }

    /** A source was stored ({@code failed == false}) or listed as failed. */
    default void sourceDone(int sourceIndex, boolean failed, long payloadBytes) {
    }

    /** A shard was finished and renamed into place. */
    default void shardWritten(ShardFile.Summary shard) {
    }

    IngestListener NONE = new IngestListener() { };
}
