package dev.stoker.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An ingested dataset: the folder {@code stoker ingest} wrote, opened for reading. Shards are
 * memory-mapped; {@link #sample} answers from the manifest without touching payloads, and
 * {@link #newReader()} gives per-thread {@link ClipReader}s.
 *
 * <pre>{@code
 * try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader()) {
 *     SampleInfo s = shards.sample(7);
 *     reader.read(7, new ClipRequest(ClipSpec.frames(0.5, 16, 2), Resize.centerCrop(112, 112, 112), dst));
 * }
 * }</pre>
 *
 * <p>Thread-safe; close it after every reader is closed (the mappings go away with it).
 */
public final class ShardDataset implements AutoCloseable {
    /** The manifest at the folder's root, written last by an ingest: its presence marks a complete ingest. */
    public static final String MANIFEST = "stoker-shards.json";

    private ShardDataset() {
    }

    /** True when {@code path} is a folder holding a complete ingest (its manifest). */
    public static boolean isShardDataset(Path path) {
        return path != null && Files.isRegularFile(path.resolve(MANIFEST));
    }

    /**
     * Opens an ingested folder: reads the manifest and maps the shards (their indexes are read on
     * first use). A damaged shard does not fail the open; reading its samples does.
     *
     * @throws IOException when the manifest is missing or unreadable, or from another format version
     */
    public static ShardDataset open(Path dest) throws IOException {
        throw new UnsupportedOperationException("coming");
    }

    /** Number of samples (bad sources excluded). */
    public int size() {
        throw new UnsupportedOperationException("coming");
    }

    /** Sample {@code index}, {@code 0..size()-1}. */
    public SampleInfo sample(int index) {
        throw new UnsupportedOperationException("coming");
    }

    /** Label {@code i} stands for {@code classNames().get(i)}. */
    public List<String> classNames() {
        throw new UnsupportedOperationException("coming");
    }

    /** The options the shards were written with (format, size, fps, GOP, shard size). */
    public IngestOptions options() {
        throw new UnsupportedOperationException("coming");
    }

    /** The folder. */
    public Path root() {
        throw new UnsupportedOperationException("coming");
    }

    /** A reader for one thread: one FFmpeg decoding thread, skipping frames nothing needs. */
    public ClipReader newReader() {
        throw new UnsupportedOperationException("coming");
    }

    @Override
    public void close() {
    }
}
