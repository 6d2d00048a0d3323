package dev.stoker.store.loader.internal;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderProvider;
import dev.stoker.loader.Opening;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.remote.RemoteAccess;
import java.io.IOException;

/**
 * {@code Loaders.open} for shards written by {@code stoker ingest}: a local folder, or a location on {@code s3://} or
 * {@code https://} read in place by ranged GETs, recognised by their manifest (one HEAD for a remote one). The
 * {@link ShardLoader} it opens owns the dataset, and closes it after itself. Packets are checked on their first
 * read; the opening's {@link RemoteAccess} gives the S3 endpoint and the block cache. Registered in
 * {@code META-INF/services}.
 */
public final class ShardsProvider implements LoaderProvider {

    @Override
    public String opens() {
        return "shards written by stoker ingest (a folder, s3:// or https://)";
    }

    @Override
    public Claim claim(String location, Opening opening) throws IOException {
        return ShardDataset.isShardDataset(location, access(opening).s3Endpoint()) ? Claim.RECOGNISED : Claim.NONE;
    }

    @Override
    public HostBatchLoader open(String location, LoaderOptions options, Opening opening) throws IOException {
        RemoteAccess access = access(opening);
        ShardDataset shards = ShardDataset.open(location, access.s3Endpoint(), Verification.FIRST_READ, access.cache());
        try {
            ShardLoader loader = ShardLoader.open(shards, options, opening);
            loader.closeAfter(shards);
            return loader;
        } catch (RuntimeException | Error e) {
            shards.close();
            throw e;
        }
    }

    private static RemoteAccess access(Opening opening) {
        return opening.setting(RemoteAccess.class, RemoteAccess.DEFAULT);
    }
}
