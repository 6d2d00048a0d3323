package dev.stoker.store.remote.internal;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.LocalBlobStore;
import dev.stoker.store.remote.S3BlobStore;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.ShardFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Publishes a finished ingest folder to object storage with the commit order readers rely on: the old manifest
 * removed first, then every shard (multipart above {@link S3BlobStore#MULTIPART_BYTES}) and the report, the
 * manifest last, so a reader that finds the manifest finds every shard it names, whole. A shard already there with
 * its size is kept (a rerun after an interrupted upload sends only the rest).
 */
public final class ShardUpload {
    /** What an upload did. */
    public record Result(int shardsUploaded, int shardsKept, long bytesUploaded) {
    }

    private static final int FOOTER_BYTES = 48;

    private ShardUpload() {
    }

    public static Result publish(Path folder, BlobStore store) throws IOException {
        Path manifestFile = folder.resolve(ShardDataset.MANIFEST);
        if (!Files.isRegularFile(manifestFile)) {
            throw new NoSuchFileException(folder.toString(), null, "no " + ShardDataset.MANIFEST
                    + " (expected: a folder written by a finished stoker ingest)");
        }
        Manifest manifest = Manifest.read(manifestFile);
        store.delete(ShardDataset.MANIFEST);
        int uploaded = 0;
        int kept = 0;
        long bytes = 0;
        for (ShardFile.Summary shard : manifest.shards()) {
            if (alreadyThere(store, folder.resolve(shard.file()), shard)) {
                kept++;
                continue;
            }
            store.put(shard.file(), folder.resolve(shard.file()));
            uploaded++;
            bytes += shard.fileBytes();
        }
        Path report = folder.resolve(Ingest.REPORT);
        if (Files.isRegularFile(report)) {
            store.put(Ingest.REPORT, report);
        }
        store.put(ShardDataset.MANIFEST, manifestFile);
        return new Result(uploaded, kept, bytes);
    }

    /** Same size and same footer (which holds the index's checksum): the same shard, not one of another ingest. */
    private static boolean alreadyThere(BlobStore store, Path local, ShardFile.Summary shard) throws IOException {
        try {
            if (store.size(shard.file()) != shard.fileBytes() || shard.fileBytes() < FOOTER_BYTES) {
                return false;
            }
        } catch (NoSuchFileException e) {
            return false;
        }
        ByteRange footer = new ByteRange(shard.fileBytes() - FOOTER_BYTES, FOOTER_BYTES);
        return Arrays.equals(store.read(shard.file(), footer), new LocalBlobStore(local.getParent()).read(shard.file(), footer));
    }
}
