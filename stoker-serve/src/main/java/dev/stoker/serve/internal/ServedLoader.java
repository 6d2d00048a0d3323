package dev.stoker.serve.internal;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.batch.BatchMemory;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.SamplerState;
import dev.stoker.video.loader.HostBatchLoader;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The loader a session serves, with what it was opened on: a shard folder written by {@code stoker ingest} runs
 * the shard loader, anything else is a video dataset. Closing it closes the shard dataset after the loader.
 */
public record ServedLoader(HostBatchLoader loader, List<String> classNames, ShardDataset shards) implements AutoCloseable {

    public static ServedLoader open(Path root, LoaderOptions options, SamplerState resume, BatchMemory memory)
            throws IOException {
        if (ShardDataset.isShardDataset(root)) {
            ShardDataset shards = ShardDataset.open(root);
            try {
                ShardLoader loader = resume == null
                        ? ShardLoader.open(shards, options, null, ReadAhead.defaults(), memory)
                        : ShardLoader.resume(shards, options, resume, null, ReadAhead.defaults(), memory);
                return new ServedLoader(loader, shards.classNames(), shards);
            } catch (RuntimeException e) {
                shards.close();
                throw e;
            }
        }
        Dataset dataset = Dataset.open(root);
        VideoLoader loader = resume == null
                ? VideoLoader.open(dataset, options, null, memory)
                : VideoLoader.resume(dataset, options, resume, null, memory);
        return new ServedLoader(loader, dataset.classNames(), null);
    }

    @Override
    public void close() {
        try {
            loader.close();
        } finally {
            if (shards != null) {
                shards.close();
            }
        }
    }
}
