package dev.stoker.store.remote;

import java.net.URI;

/**
 * How this process reaches shards on object storage, as an {@code Opening} setting of the shard loader: the S3
 * endpoint ({@code s3://} locations; null: AWS's own) and the local block cache that keeps what was read (null: none).
 *
 * @param s3Endpoint the endpoint of an S3-compatible store, or null
 * @param cache      the block cache's folder and budget, or null
 */
public record RemoteAccess(URI s3Endpoint, BlockCache.Settings cache) {
    /** AWS's endpoint, no cache. */
    public static final RemoteAccess DEFAULT = new RemoteAccess(null, null);
}
