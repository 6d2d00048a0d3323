package dev.stoker.cli;

import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Loaders;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.store.remote.RemoteAccess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A command's dataset, resolved once ({@link LoaderOptionsMixin#location}): shards read where they are, on
 * {@code s3://} or {@code https://}, or a local folder of video files or of shards. Remote video files are no
 * location of their own: they are copied into the cache first and become a {@link Folder}.
 */
sealed interface DatasetLocation {

    /** Where it is, as the user named it (remote) or as a path (local), for messages and reports. */
    String name();

    /** Whether it holds shards written by {@code stoker ingest}, rather than video files. */
    boolean isShards();

    /** Opens the shards ({@link #isShards()} only); readers check each packet's checksum on its first read. */
    ShardDataset openShards() throws IOException;

    /** The video files there (not {@link #isShards()}); one that cannot be opened is a usage error on DATASET. */
    Dataset openVideos(CommandSpec spec);

    /** How the loaders reach it: the S3 endpoint and block cache of remote shards, nothing for a local folder. */
    Opening reach(Opening opening);

    /**
     * Its loader of host batches ({@link Loaders#open}), opened as {@code opening} says; a folder that holds no
     * dataset is a usage error on DATASET.
     */
    default HostBatchLoader open(CommandSpec spec, LoaderOptions options, Opening opening) throws IOException {
        try {
            return Loaders.open(name(), options, reach(opening));
        } catch (IOException e) {
            throw openFailed(spec, e);
        }
    }

    /** Its loader with batches on {@code device} ({@link Loaders#onDevice}: the host loader's on {@code cpu}). */
    default ClipLoader<? extends LoadedBatch> open(CommandSpec spec, DeviceSpec device, LoaderOptions options,
                                                   Opening opening) throws IOException {
        try {
            return Loaders.onDevice(device, name(), options, reach(opening));
        } catch (IOException e) {
            throw openFailed(spec, e);
        }
    }

    /**
     * Opening it failed with {@code e}: video files that are not there, or a malformed manifest, are a usage error on
     * DATASET (thrown here); anything else (shards that cannot be read) is {@code e}, for the caller to throw.
     */
    IOException openFailed(CommandSpec spec, IOException e);

    /**
     * Shards on object storage or a web server, read in place by ranged GETs; through a local block cache where
     * {@code cache} is not null (a second epoch, or a rerun, reads what it holds from disk).
     */
    record RemoteShards(String location, URI s3Endpoint, BlockCache.Settings cache) implements DatasetLocation {
        public RemoteShards {
            Objects.requireNonNull(location, "location");
        }

        @Override
        public String name() { return location; }

        @Override
        public boolean isShards() { return true; }

        @Override
        public ShardDataset openShards() throws IOException {
            return ShardDataset.open(location, s3Endpoint, Verification.FIRST_READ, cache);
        }

        @Override
        public Dataset openVideos(CommandSpec spec) {
            throw new IllegalStateException(location + " holds shards, not video files");
        }

        @Override
        public Opening reach(Opening opening) {
            return opening.with(new RemoteAccess(s3Endpoint, cache));
        }

        @Override
        public IOException openFailed(CommandSpec spec, IOException e) {
            return e;
        }
    }

    /** A local folder: video files (a dataset or CSV manifest) or a shard folder. */
    record Folder(Path root) implements DatasetLocation {
        public Folder {
            Objects.requireNonNull(root, "root");
        }

        @Override
        public String name() { return root.toString(); }

        @Override
        public boolean isShards() {
            return ShardDataset.isShardDataset(root);
        }

        @Override
        public ShardDataset openShards() throws IOException {
            return ShardDataset.open(root);
        }

        @Override
        public Dataset openVideos(CommandSpec spec) {
            return LoaderOptionsMixin.openDataset(spec, root);
        }

        @Override
        public Opening reach(Opening opening) {
            return opening;
        }

        @Override
        public IOException openFailed(CommandSpec spec, IOException e) {
            if (isShards()) {
                return e;
            }
            throw new ParameterException(spec.commandLine(), "DATASET: " + CliErrors.describePath(root, e));
        }
    }
}
