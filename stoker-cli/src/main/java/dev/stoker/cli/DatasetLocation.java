package dev.stoker.cli;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.remote.BlockCache;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import picocli.CommandLine.Model.CommandSpec;

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

    /**
     * Shards on object storage or a web server, read in place by ranged GETs; through a local block cache where
     * {@code cache} is not null (a second epoch, or a rerun, reads what it holds from disk).
     */
    record RemoteShards(String location, URI s3Endpoint, BlockCache.Settings cache) implements DatasetLocation {
        public RemoteShards {
            Objects.requireNonNull(location, "location");
        }

        @Override
        public String name() {
            return location;
        }

        @Override
        public boolean isShards() {
            return true;
        }

        @Override
        public ShardDataset openShards() throws IOException {
            return ShardDataset.open(location, s3Endpoint, Verification.FIRST_READ, cache);
        }

        @Override
        public Dataset openVideos(CommandSpec spec) {
            throw new IllegalStateException(location + " holds shards, not video files");
        }
    }

    /** A local folder: video files (a dataset or CSV manifest) or a shard folder. */
    record Folder(Path root) implements DatasetLocation {
        public Folder {
            Objects.requireNonNull(root, "root");
        }

        @Override
        public String name() {
            return root.toString();
        }

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
    }
}
