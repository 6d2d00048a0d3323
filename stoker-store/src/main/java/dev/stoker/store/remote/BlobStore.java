package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.store.remote.internal.Retry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * A folder of objects, wherever it lives: a local folder, {@code s3://bucket/prefix}, or {@code https://…}
 * (read-only: a CSV manifest of URLs). Keys are relative names ({@code shard-0000000.stk}, {@code a/b.mp4}).
 * Reads are ranged: a server that ignores {@code Range} and sends the whole object is answered with the
 * slice asked for. Transient failures are retried ({@link Retry}); thread-safe.
 */
public sealed interface BlobStore extends AutoCloseable permits LocalBlobStore, S3BlobStore, HttpBlobStore {

    /** Where this store points, for messages: the location it was opened with. */
    String location();

    /** Every key under this store, sorted. */
    List<String> list() throws IOException;

    /** The object's size; {@link java.nio.file.NoSuchFileException} naming it when absent. */
    long size(String key) throws IOException;

    /**
     * What one HEAD tells of an object: its size and its version ({@link Head}); {@link java.nio.file.NoSuchFileException}
     * naming it when absent.
     */
    default Head head(String key) throws IOException {
        return new Head(size(key), null);
    }

    /** Bytes {@code range} of the object; fewer bytes than asked (past its end, a cut body) is an error. */
    byte[] read(String key, ByteRange range) throws IOException;

    /** The whole object. */
    default byte[] readAll(String key) throws IOException {
        return read(key, new ByteRange(0, size(key)));
    }

    /** Stores {@code file} under {@code key}, replacing what was there; all or nothing for readers. */
    void put(String key, Path file) throws IOException;

    /**
     * Stores {@code bytes} under {@code key} unless the key exists (S3's {@code If-None-Match: *}; an exclusive
     * create on disk): false when another writer won. The commit point of a partition.
     */
    boolean putIfAbsent(String key, byte[] bytes) throws IOException;

    /** Removes the object if present. */
    void delete(String key) throws IOException;

    /** Requests and retries made so far. */
    Stats stats();

    @Override
    void close();

    /**
     * An object's size and version: S3's ETag, HTTP's ETag or else its Last-Modified; null where the store gives none.
     * A copy of the same size but another version is a copy of what the object was.
     */
    record Head(long sizeBytes, String version) {
    }

    /** What a store did: requests sent (retries included), retries, bytes received. */
    record Stats(long requests, long retries, long bytesRead) {
    }

    /** Whether {@code location} names object storage or HTTP rather than a local path. */
    static boolean isRemote(String location) {
        return location.startsWith("s3://") || location.startsWith("https://") || location.startsWith("http://");
    }

    /**
     * Opens {@code location}: {@code s3://bucket/prefix} (region and credentials from the usual AWS settings;
     * {@code s3Endpoint} for S3 compatibles, null for AWS), {@code http(s)://…} (a CSV manifest of URLs, or a
     * folder URL ending in {@code /}), else a local folder.
     */
    static BlobStore open(String location, URI s3Endpoint) throws IOException {
        if (location.startsWith("s3://")) {
            return S3BlobStore.open(location, S3BlobStore.Settings.fromEnvironment(s3Endpoint), Retry.standard());
        }
        if (location.startsWith("https://") || location.startsWith("http://")) {
            return HttpBlobStore.open(URI.create(location), Retry.standard());
        }
        return new LocalBlobStore(Path.of(location));
    }
}
