package dev.stoker.serve.internal;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchMemory;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * The loader a session serves, with what it was opened on: shards written by {@code stoker ingest} (a folder, or
 * on object storage or HTTP) run the shard loader, anything else is a video dataset. Closing it closes the shard
 * dataset after the loader.
 */
public record ServedLoader(HostBatchLoader loader, List<String> classNames, ShardDataset shards) implements AutoCloseable {

    /**
     * Opens {@code dataset}: a local folder or manifest, or shards at an {@code s3://} or {@code https://} location
     * (through {@code s3Endpoint} for s3://, null for AWS's), read in place, through the block cache {@code cache}
     * where it is not null.
     */
    public static ServedLoader open(String dataset, URI s3Endpoint, BlockCache.Settings cache, LoaderOptions options,
                                    SamplerState resume, BatchMemory memory) throws IOException {
        if (BlobStore.isRemote(dataset)) {
            return openShards(ShardDataset.open(dataset, s3Endpoint, Verification.FIRST_READ, cache), options, resume, memory);
        }
        Path root = Path.of(dataset);
        if (ShardDataset.isShardDataset(root)) {
            return openShards(ShardDataset.open(root), options, resume, memory);
        }
        Dataset videos = Dataset.open(root);
        VideoLoader loader = resume == null
                ? VideoLoader.open(videos, options, Opening.defaults().batchesIn(memory))
                : VideoLoader.open(videos, options, Opening.defaults().resumingFrom(resume).batchesIn(memory));
        return new ServedLoader(loader, videos.classNames(), null);
    }

    /** The shard loader over {@code shards}, which it closes when the loader cannot start. */
    private static ServedLoader openShards(ShardDataset shards, LoaderOptions options, SamplerState resume,
                                           BatchMemory memory) {
        try {
            ShardLoader loader = resume == null
                    ? ShardLoader.open(shards, options, Opening.defaults().batchesIn(memory))
                    : ShardLoader.open(shards, options, Opening.defaults().resumingFrom(resume).batchesIn(memory));
            return new ServedLoader(loader, shards.classNames(), shards);
        } catch (RuntimeException e) {
            shards.close();
            throw e;
        }
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
