package dev.stoker.store.remote;

import dev.stoker.pipeline.internal.PrivateFiles;
import dev.stoker.store.remote.internal.ByteRange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Remote objects' bytes on local disk, in blocks of {@code blockBytes} aligned to each object's start, under a byte
 * budget: a second epoch, or a rerun, reads what an earlier one downloaded from disk instead of from the network.
 *
 * <p>A missing block is downloaded (adjacent missing blocks of one read in one ranged GET), written to
 * {@code <block>.part} with its CRC32C after the data, and renamed into place: a crash leaves a {@code .part}, never
 * a block that looks whole. Every read of a cached block checks its CRC32C; a block that fails (a bad disk, a file
 * changed behind the cache's back) is deleted and downloaded again, and counted. Blocks are named by the object's
 * location, key, size and version (a shard's index checksum), so a re-ingested object never meets its old blocks.
 *
 * <p>The blocks of a read, and those {@link #pin pinned} ahead of their read, are in use: never evicted. Room for a
 * new block is made by evicting the least recently used of the rest; when everything cached is in use the block is
 * handed over without being stored (counted: {@link Stats#uncached}), never over the budget and never waited for.
 * One process a folder (a lock file); thread-safe.
 */
public final class BlockCache implements AutoCloseable {
    /** 256 KiB: a few clips of a shard a block; few enough files for a budget of tens of GiB. */
    public static final int DEFAULT_BLOCK_BYTES = 256 << 10;

    /**
     * Where and how much: {@code dir} the cache folder (made if absent), {@code budgetBytes} the most the block files
     * may take on disk, {@code blockBytes} the block size.
     */
    public record Settings(Path dir, long budgetBytes, int blockBytes) {
        public Settings {
            Objects.requireNonNull(dir, "dir");
            if (blockBytes < 4096) {
                throw new IllegalArgumentException("blockBytes: " + blockBytes + " (expected: 4096+)");
            }
            if (budgetBytes < blockBytes + BlockFiles.CRC_BYTES) {
                throw new IllegalArgumentException("cache budget: " + budgetBytes + " bytes (expected: at least one block, "
                        + (blockBytes + BlockFiles.CRC_BYTES) + " bytes)");
            }
        }

        /** {@code budgetBytes} in blocks of {@link #DEFAULT_BLOCK_BYTES}. */
        public static Settings of(Path dir, long budgetBytes) {
            return new Settings(dir, budgetBytes, DEFAULT_BLOCK_BYTES);
        }
    }

    /**
     * What the cache did.
     *
     * @param hits          blocks a read found cached (on disk, or being downloaded by a read ahead)
     * @param misses        blocks a read had to download
     * @param fetchedAhead  blocks downloaded by {@link #pin} (reading ahead) before any read asked for them
     * @param requests      ranged GETs sent (retries not counted: see the store's stats)
     * @param bytesFetched  bytes downloaded
     * @param corrupt       cached blocks whose checksum failed on read, deleted and downloaded again
     * @param evicted       blocks evicted to make room
     * @param uncached      downloaded blocks not stored: every cached block was in use
     * @param storedBytes   bytes of block files on disk now
     * @param pinnedBytes   of those, bytes in use now (being read, or pinned ahead)
     * @param budgetBytes   the budget
     */
    public record Stats(long hits, long misses, long fetchedAhead, long requests, long bytesFetched, long corrupt,
                        long evicted, long uncached, long storedBytes, long pinnedBytes, long budgetBytes) {
        /** Share of the blocks reads asked for that were cached; 0 before the first read. */
        public double hitRate() {
            return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
        }
    }

    /** An object as the cache knows it: where to download it from, how long it is, and the name its blocks go by. */
    public record CachedObject(BlobStore store, String key, long sizeBytes, String id) {
    }

    /** Blocks held in use until {@link #close()}: not evicted meanwhile. */
    public final class Pin implements AutoCloseable {
        private final List<BlockIndex.Block> blocks;
        private final long bytes;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Pin(List<BlockIndex.Block> blocks, long bytes) {
            this.blocks = blocks;
            this.bytes = bytes;
        }

        /** Bytes of the pinned blocks (what they take on disk, or would have taken). */
        public long bytes() { return bytes; }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                index.unpin(blocks);
            }
        }
    }

    private final Settings settings;
    private final BlockLayout layout;
    private final FolderLock folderLock;
    private final BlockIndex index;

    private BlockCache(Settings settings, FolderLock folderLock) {
        this.settings = settings;
        this.layout = new BlockLayout(settings.blockBytes());
        this.folderLock = folderLock;
        this.index = new BlockIndex(settings);
    }

    /**
     * Opens the cache folder: takes its lock, deletes {@code .part} files a crashed run left, registers the blocks a
     * previous run stored (oldest written first in line for eviction) and evicts down to the budget.
     *
     * @throws IOException when the folder cannot be made, or another process has it open
     */
    public static BlockCache open(Settings settings) throws IOException {
        BlockCache cache = new BlockCache(settings, FolderLock.take(settings.dir()));
        try {
            PrivateFiles.createFolders(cache.index.blocksDir());
            cache.index.load(BlockFiles.scan(cache.index.blocksDir()));
        } catch (IOException | RuntimeException e) {
            cache.close();
            throw e;
        }
        return cache;
    }

    public Settings settings() { return settings; }

    /** Object {@code key} of {@code store}, {@code sizeBytes} long, in the version {@code version} names. */
    public CachedObject object(BlobStore store, String key, long sizeBytes, String version) {
        String name = store.location() + "\n" + key + "\n" + sizeBytes + "\n" + version;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return new CachedObject(store, key, sizeBytes, HexFormat.of().formatHex(digest, 0, 12));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The blocks {@code bytes} contiguous bytes can span at most, wherever they start. */
    public long blocksSpanning(long bytes) {
        return layout.spanning(bytes);
    }

    /** The disk bytes of the blocks {@code ranges} of {@code object} touch: what {@link #pin} would hold. */
    public long blockBytes(CachedObject object, List<ByteRange> ranges) {
        long bytes = 0;
        for (long[] run : layout.runs(object, ranges)) {
            for (long b = run[0]; b <= run[1]; b++) {
                bytes += layout.length(object, b) + BlockFiles.CRC_BYTES;
            }
        }
        return bytes;
    }

    /**
     * Refuses a budget that cannot hold what one batch's reads use at once.
     *
     * @param samples       samples a batch reads
     * @param sampleBytes   the most bytes one sample's read spans (its record's payload)
     * @throws IllegalArgumentException naming the budget and the working set
     */
    public void requireRoomForBatch(int samples, long sampleBytes) {
        long blocks = blocksSpanning(sampleBytes);
        long workingSet = batchWorkingSetBytes(samples, sampleBytes);
        if (settings.budgetBytes() < workingSet) {
            throw new IllegalArgumentException("cache budget " + settings.budgetBytes() + " bytes is below one batch's"
                    + " working set, " + workingSet + " bytes (" + samples + " samples × " + blocks + " blocks of "
                    + settings.blockBytes() + " bytes; expected: a budget of " + workingSet + " bytes or more)");
        }
    }

    /** One batch's working set as {@link #requireRoomForBatch} counts it. */
    public long batchWorkingSetBytes(int samples, long sampleBytes) {
        return samples * blocksSpanning(sampleBytes) * (settings.blockBytes() + (long) BlockFiles.CRC_BYTES);
    }

    /**
     * Bytes {@code range} of {@code object}: from cached blocks (each checked against its CRC32C), downloading the
     * missing ones (adjacent ones in one GET) and storing them as room allows.
     */
    public byte[] read(CachedObject object, ByteRange range) throws IOException {
        BlockLayout.checkWithin(object, range);
        byte[] out = new byte[Math.toIntExact(range.length())];
        if (range.length() == 0) {
            return out;
        }
        long first = layout.first(range);
        Acquired acquired = acquire(object, first, layout.last(range), true);
        try {
            for (int i = 0; i < acquired.data.length; i++) {
                long blockStart = layout.start(first + i);
                long from = Math.max(range.offset(), blockStart);
                long to = Math.min(range.end(), blockStart + acquired.data[i].length);
                System.arraycopy(acquired.data[i], Math.toIntExact(from - blockStart), out,
                        Math.toIntExact(from - range.offset()), Math.toIntExact(to - from));
            }
        } finally {
            acquired.pin.close();
        }
        return out;
    }

    /**
     * Downloads the missing blocks of {@code ranges} of {@code object} and holds them all in use until the pin is
     * closed: reading ahead. Blocks that found no room are downloaded and dropped (the read will download them again).
     */
    public Pin pin(CachedObject object, List<ByteRange> ranges) throws IOException {
        List<Pin> parts = new ArrayList<>();
        try {
            for (long[] run : layout.runs(object, ranges)) {
                parts.add(acquire(object, run[0], run[1], false).pin);
            }
        } catch (IOException | RuntimeException | Error e) {
            parts.forEach(Pin::close);
            throw e;
        }
        List<BlockIndex.Block> all = new ArrayList<>();
        long bytes = 0;
        for (Pin p : parts) {
            all.addAll(p.blocks);
            bytes += p.bytes;
        }
        return new Pin(all, bytes);
    }

    public Stats stats() { return index.stats(); }

    /** Blocks {@code first..last}, pinned, and (for {@code wantData}) their bytes. */
    private record Acquired(Pin pin, byte[][] data) {
    }

    private Acquired acquire(CachedObject object, long first, long last, boolean wantData) throws IOException {
        int count = Math.toIntExact(last - first + 1);
        BlockIndex.Reservation r = index.reserve(object.id(), first, count,
                b -> layout.length(object, b) + BlockFiles.CRC_BYTES, wantData);
        Pin pin = new Pin(r.pinned(), r.pinBytes());
        try {
            byte[][] data = new byte[count][];
            download(object, first, r.entries(), r.mine(), data);
            for (int i = 0; i < count; i++) {
                if (r.awaited()[i]) {
                    awaitDownload(r.entries()[i]);
                }
                if (wantData && data[i] == null) {
                    data[i] = readBlock(object, first + i, r.entries()[i]);
                }
            }
            return new Acquired(pin, wantData ? data : null);
        } catch (IOException | RuntimeException | Error e) {
            pin.close();
            throw e;
        }
    }

    /** Downloads the blocks marked {@code mine}, each run of adjacent ones in one GET; stores those with an entry. */
    private void download(CachedObject object, long first, BlockIndex.Block[] entries, boolean[] mine, byte[][] data)
            throws IOException {
        int i = 0;
        try {
            while (i < mine.length) {
                if (!mine[i]) {
                    i++;
                    continue;
                }
                int j = i;
                while (j + 1 < mine.length && mine[j + 1]) {
                    j++;
                }
                long from = layout.start(first + i);
                long to = Math.min(object.sizeBytes(), layout.start(first + j + 1));
                byte[] bytes = object.store().read(object.key(), new ByteRange(from, to - from));
                index.fetched(bytes.length);
                for (int k = i; k <= j; k++) {
                    int at = (k - i) * settings.blockBytes();
                    data[k] = Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + settings.blockBytes()));
                    if (entries[k] != null) {
                        store(entries[k], data[k]);
                    }
                }
                i = j + 1;
            }
        } finally {
            // Downloads this call owned and did not finish (a failed GET): their entries go, their waiters retry.
            for (int k = 0; k < mine.length; k++) {
                if (mine[k] && entries[k] != null) {
                    index.abandon(entries[k]);
                }
            }
        }
    }

    /** Writes a downloaded block (data and CRC32C to {@code .part}, then renamed into place) and tells its waiters. */
    private void store(BlockIndex.Block b, byte[] data) throws IOException {
        BlockFiles.write(b.file, data);
        index.stored(b);
    }

    private void awaitDownload(BlockIndex.Block b) throws IOException {
        CompletableFuture<Void> done = index.download(b);
        if (done == null) {
            return;
        }
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for block " + b.file);
        } catch (ExecutionException e) {
            // The other download failed: readBlock finds no file and downloads it again itself.
        }
    }

    /**
     * A cached block's bytes, checked against their CRC32C; a block that fails the check, or whose file is gone (its
     * download failed elsewhere, or it was deleted behind the cache's back), is downloaded again and stored anew.
     */
    private byte[] readBlock(CachedObject object, long blockIndex, BlockIndex.Block b) throws IOException {
        if (b != null) {
            byte[] cached = BlockFiles.readVerified(b.file, layout.length(object, blockIndex));
            if (cached != null) {
                return cached;
            }
            index.damaged(b);
        }
        byte[] data = object.store().read(object.key(), new ByteRange(layout.start(blockIndex),
                layout.length(object, blockIndex)));
        index.fetched(data.length);
        if (b != null && !index.isRemoved(b)) {
            try {
                store(b, data);
            } catch (IOException e) {
                throw new IOException(b.file + ": cannot store a downloaded block: " + e.getMessage(), e);
            }
        }
        return data;
    }

    /** Releases the folder's lock; blocks stay on disk for the next run. */
    @Override
    public void close() {
        index.close();
        folderLock.close();
    }
}
