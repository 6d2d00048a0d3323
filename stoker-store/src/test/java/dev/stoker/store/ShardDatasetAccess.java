package dev.stoker.store;

import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.shard.internal.RecordEntry;

/** Test access to a sample's index entry. */
final class ShardDatasetAccess {
    private ShardDatasetAccess() {
    }

    static RecordEntry entry(ShardDataset shards, int sample) {
        SampleInfo info = shards.sample(sample);
        return shards.shardOf(info).entry(info.record());
    }
}
