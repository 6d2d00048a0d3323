package dev.stoker.store.remote;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

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
    private static final int CRC_BYTES = 4;
    private static final String BLOCK_SUFFIX = ".blk";
    private static final String PART_SUFFIX = ".part";

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
            if (budgetBytes < blockBytes + CRC_BYTES) {
                throw new IllegalArgumentException("cache budget: " + budgetBytes + " bytes (expected: at least one block, "
                        + (blockBytes + CRC_BYTES) + " bytes)");
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
        private final List<Block> blocks;
        private final long bytes;
        private boolean closed;

        private Pin(List<Block> blocks, long bytes) {
            this.blocks = blocks;
            this.bytes = bytes;
        }

        /** Bytes of the pinned blocks (what they take on disk, or would have taken). */
        public long bytes() {
            return bytes;
        }

        @Override
        public void close() {
            lock.lock();
            try {
                if (!closed) {
                    closed = true;
                    unpin(blocks);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private record BlockId(String object, long index) {
    }

    /** A block's entry; guarded by the cache's lock. */
    private static final class Block {
        final BlockId id;
        final Path file;
        long fileBytes;
        int pins;
        /** Evicted, or its download failed: no longer the cache's; a late download of it is not stored. */
        boolean removed;
        /** Completes when the download in flight (stored or failed) ends; null when none is. */
        CompletableFuture<Void> download;

        Block(BlockId id, Path file, long fileBytes) {
            this.id = id;
            this.file = file;
            this.fileBytes = fileBytes;
        }
    }

    private final Settings settings;
    private final Path blocksDir;
    private final FileChannel lockChannel;
    private final FileLock fileLock;
    private final ReentrantLock lock = new ReentrantLock();
    /** Every block stored or being stored, least recently used first. */
    private final LinkedHashMap<BlockId, Block> blocks = new LinkedHashMap<>(256, 0.75f, true);
    private long storedBytes;
    private long pinnedBytes;
    private long hits;
    private long misses;
    private long fetchedAhead;
    private long requests;
    private long bytesFetched;
    private long corrupt;
    private long evicted;
    private long uncached;
    private boolean closed;

    private BlockCache(Settings settings, Path blocksDir, FileChannel lockChannel, FileLock fileLock) {
        this.settings = settings;
        this.blocksDir = blocksDir;
        this.lockChannel = lockChannel;
        this.fileLock = fileLock;
    }

    /**
     * Opens the cache folder: takes its lock, deletes {@code .part} files a crashed run left, registers the blocks a
     * previous run stored (oldest written first in line for eviction) and evicts down to the budget.
     *
     * @throws IOException when the folder cannot be made, or another process has it open
     */
    public static BlockCache open(Settings settings) throws IOException {
        Path dir = settings.dir();
        Files.createDirectories(dir);
        FileChannel channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock fileLock;
        try {
            fileLock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            fileLock = null;
        }
        if (fileLock == null) {
            channel.close();
            throw new IOException(dir + ": the block cache is in use by another loader (expected: one process a cache folder)");
        }
        BlockCache cache = new BlockCache(settings, dir.resolve("blocks"), channel, fileLock);
        try {
            cache.load();
        } catch (IOException | RuntimeException e) {
            cache.close();
            throw e;
        }
        return cache;
    }

    private void load() throws IOException {
        Files.createDirectories(blocksDir);
        record Found(Path file, long bytes, FileTime written) {
        }
        List<Found> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(blocksDir, 2)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(PART_SUFFIX)) {
                    Files.deleteIfExists(file); // a download a crash interrupted: never a block
                } else if (name.endsWith(BLOCK_SUFFIX) && Files.isRegularFile(file)) {
                    found.add(new Found(file, Files.size(file), Files.getLastModifiedTime(file)));
                }
            }
        }
        found.sort(Comparator.comparing(Found::written));
        for (Found f : found) {
            String name = f.file().getFileName().toString();
            long index;
            try {
                index = Long.parseLong(name.substring(0, name.length() - BLOCK_SUFFIX.length()));
            } catch (NumberFormatException e) {
                continue; // not one of ours
            }
            BlockId id = new BlockId(f.file().getParent().getFileName().toString(), index);
            blocks.put(id, new Block(id, f.file(), f.bytes()));
            storedBytes += f.bytes();
        }
        lock.lock();
        try {
            makeRoom(0);
        } finally {
            lock.unlock();
        }
    }

    public Settings settings() {
        return settings;
    }

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
        return bytes <= 0 ? 0 : (bytes + settings.blockBytes() - 1) / settings.blockBytes() + 1;
    }

    /** The disk bytes of the blocks {@code ranges} of {@code object} touch: what {@link #pin} would hold. */
    public long blockBytes(CachedObject object, List<ByteRange> ranges) {
        long bytes = 0;
        for (long[] run : blockRuns(object, ranges)) {
            for (long b = run[0]; b <= run[1]; b++) {
                bytes += blockLength(object, b) + CRC_BYTES;
            }
        }
        return bytes;
    }

    /** The blocks {@code ranges} touch, as runs {first, last} of adjacent blocks, ascending, each block once. */
    private List<long[]> blockRuns(CachedObject object, List<ByteRange> ranges) {
        List<long[]> runs = new ArrayList<>();
        for (ByteRange r : ByteRange.merge(ranges)) {
            checkWithin(object, r);
            long from = first(r);
            long to = last(r);
            long[] previous = runs.isEmpty() ? null : runs.getLast();
            if (previous != null && from <= previous[1] + 1) {
                previous[1] = Math.max(previous[1], to);
            } else {
                runs.add(new long[] {from, to});
            }
        }
        return runs;
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
        long workingSet = samples * blocks * (settings.blockBytes() + (long) CRC_BYTES);
        if (settings.budgetBytes() < workingSet) {
            throw new IllegalArgumentException("cache budget " + settings.budgetBytes() + " bytes is below one batch's"
                    + " working set, " + workingSet + " bytes (" + samples + " samples × " + blocks + " blocks of "
                    + settings.blockBytes() + " bytes; expected: a budget of " + workingSet + " bytes or more)");
        }
    }

    /** One batch's working set as {@link #requireRoomForBatch} counts it. */
    public long batchWorkingSetBytes(int samples, long sampleBytes) {
        return samples * blocksSpanning(sampleBytes) * (settings.blockBytes() + (long) CRC_BYTES);
    }

    /**
     * Bytes {@code range} of {@code object}: from cached blocks (each checked against its CRC32C), downloading the
     * missing ones (adjacent ones in one GET) and storing them as room allows.
     */
    public byte[] read(CachedObject object, ByteRange range) throws IOException {
        checkWithin(object, range);
        byte[] out = new byte[Math.toIntExact(range.length())];
        if (range.length() == 0) {
            return out;
        }
        long first = first(range);
        Acquired acquired = acquire(object, first, last(range), true);
        try {
            for (int i = 0; i < acquired.data.length; i++) {
                long blockStart = (first + i) * settings.blockBytes();
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
            for (long[] run : blockRuns(object, ranges)) {
                parts.add(acquire(object, run[0], run[1], false).pin);
            }
        } catch (IOException | RuntimeException | Error e) {
            parts.forEach(Pin::close);
            throw e;
        }
        List<Block> all = new ArrayList<>();
        long bytes = 0;
        for (Pin p : parts) {
            all.addAll(p.blocks);
            bytes += p.bytes;
        }
        return new Pin(all, bytes);
    }

    public Stats stats() {
        lock.lock();
        try {
            return new Stats(hits, misses, fetchedAhead, requests, bytesFetched, corrupt, evicted, uncached, storedBytes,
                    pinnedBytes, settings.budgetBytes());
        } finally {
            lock.unlock();
        }
    }

    /** Blocks {@code first..last}, pinned, and (for {@code wantData}) their bytes. */
    private record Acquired(Pin pin, byte[][] data) {
    }

    private Acquired acquire(CachedObject object, long first, long last, boolean wantData) throws IOException {
        int count = Math.toIntExact(last - first + 1);
        Block[] entries = new Block[count];
        boolean[] mine = new boolean[count];      // this call downloads it (stored if entries[i] != null)
        boolean[] wait = new boolean[count];      // another call is downloading it
        List<Block> pinned = new ArrayList<>(count);
        long pinBytes = 0;
        lock.lock();
        try {
            if (closed) {
                throw new IOException(settings.dir() + ": block cache closed");
            }
            for (int i = 0; i < count; i++) {
                BlockId id = new BlockId(object.id(), first + i);
                Block b = blocks.get(id);
                long fileBytes = blockLength(object, first + i) + CRC_BYTES;
                if (b == null) {
                    mine[i] = true;
                    if (makeRoom(fileBytes)) {
                        b = new Block(id, blocksDir.resolve(id.object()).resolve(id.index() + BLOCK_SUFFIX), fileBytes);
                        b.download = new CompletableFuture<>();
                        blocks.put(id, b);
                        storedBytes += fileBytes; // reserved now, so concurrent downloads never overrun the budget
                    } else {
                        uncached++;
                    }
                    if (wantData) {
                        misses++;
                    } else {
                        fetchedAhead++;
                    }
                } else {
                    wait[i] = b.download != null;
                    if (wantData) {
                        hits++;
                    }
                }
                if (b != null) {
                    if (b.pins++ == 0) {
                        pinnedBytes += b.fileBytes;
                    }
                    pinned.add(b);
                    entries[i] = b;
                }
                pinBytes += fileBytes;
            }
        } finally {
            lock.unlock();
        }
        Pin pin = new Pin(pinned, pinBytes);
        try {
            byte[][] data = new byte[count][];
            download(object, first, entries, mine, data);
            for (int i = 0; i < count; i++) {
                if (wait[i]) {
                    awaitDownload(entries[i]);
                }
                if (wantData && data[i] == null) {
                    data[i] = readBlock(object, first + i, entries[i]);
                }
            }
            return new Acquired(pin, wantData ? data : null);
        } catch (IOException | RuntimeException | Error e) {
            pin.close();
            throw e;
        }
    }

    /** Downloads the blocks marked {@code mine}, each run of adjacent ones in one GET; stores those with an entry. */
    private void download(CachedObject object, long first, Block[] entries, boolean[] mine, byte[][] data) throws IOException {
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
                long from = (first + i) * settings.blockBytes();
                long to = Math.min(object.sizeBytes(), (first + j + 1) * settings.blockBytes());
                byte[] bytes = object.store().read(object.key(), new ByteRange(from, to - from));
                count(bytes.length);
                for (int k = i; k <= j; k++) {
                    int at = (k - i) * settings.blockBytes();
                    data[k] = java.util.Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + settings.blockBytes()));
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
                    abandon(entries[k]);
                }
            }
        }
    }

    private void count(long bytes) {
        lock.lock();
        try {
            requests++;
            bytesFetched += bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Writes a downloaded block: data and CRC32C to {@code .part}, then renamed into place. */
    private void store(Block b, byte[] data) throws IOException {
        Files.createDirectories(b.file.getParent());
        // Named by thread: two readers re-downloading one damaged block never write the same file.
        Path part = b.file.resolveSibling(b.file.getFileName() + "." + Thread.currentThread().threadId() + PART_SUFFIX);
        CRC32C crc = new CRC32C();
        crc.update(data);
        try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer trailer = ByteBuffer.allocate(CRC_BYTES).order(ByteOrder.BIG_ENDIAN).putInt((int) crc.getValue()).flip();
            ByteBuffer body = ByteBuffer.wrap(data);
            while (body.hasRemaining()) {
                out.write(body);
            }
            while (trailer.hasRemaining()) {
                out.write(trailer);
            }
        }
        try {
            Files.move(part, b.file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(part, b.file, StandardCopyOption.REPLACE_EXISTING);
        }
        lock.lock();
        try {
            CompletableFuture<Void> done = b.download;
            b.download = null;
            if (done != null) {
                done.complete(null);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A download that failed: the entry is dropped (a later read tries again), its waiters told. */
    private void abandon(Block b) {
        lock.lock();
        try {
            CompletableFuture<Void> done = b.download;
            if (done == null) {
                return; // stored
            }
            b.download = null;
            if (!b.removed) {
                b.removed = true;
                blocks.remove(b.id);
                storedBytes -= b.fileBytes;
            }
            done.completeExceptionally(new IOException(b.file + ": download failed"));
        } finally {
            lock.unlock();
        }
    }

    private void awaitDownload(Block b) throws IOException {
        CompletableFuture<Void> done;
        lock.lock();
        try {
            done = b.download;
        } finally {
            lock.unlock();
        }
        if (done == null) {
            return;
        }
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for block " + b.file);
        } catch (ExecutionException e) {
            // The other download failed: readBlock finds no file and downloads it again itself.
        }
    }

    /**
     * A cached block's bytes, checked against their CRC32C; a block that fails the check, or whose file is gone (its
     * download failed elsewhere, or it was deleted behind the cache's back), is downloaded again and stored anew.
     */
    private byte[] readBlock(CachedObject object, long index, Block b) throws IOException {
        if (b != null) {
            try {
                byte[] file = Files.readAllBytes(b.file);
                if (file.length >= CRC_BYTES) {
                    int length = file.length - CRC_BYTES;
                    CRC32C crc = new CRC32C();
                    crc.update(file, 0, length);
                    int stored = ByteBuffer.wrap(file, length, CRC_BYTES).order(ByteOrder.BIG_ENDIAN).getInt();
                    if (stored == (int) crc.getValue() && length == blockLength(object, index)) {
                        return java.util.Arrays.copyOf(file, length);
                    }
                }
            } catch (NoSuchFileException e) {
                // gone: its download failed in another call (removed), or deleted behind the cache's back
            }
            lock.lock();
            try {
                if (!b.removed) {
                    corrupt++;
                }
            } finally {
                lock.unlock();
            }
        }
        long from = index * settings.blockBytes();
        byte[] data = object.store().read(object.key(), new ByteRange(from, blockLength(object, index)));
        count(data.length);
        if (b != null && !isRemoved(b)) {
            try {
                store(b, data);
            } catch (IOException e) {
                throw new IOException(b.file + ": cannot store a downloaded block: " + e.getMessage(), e);
            }
        }
        return data;
    }

    /**
     * Evicts least recently used blocks not in use until {@code fileBytes} more fit the budget; false (nothing
     * evicted beyond need) when they cannot. Holds the lock.
     */
    private boolean makeRoom(long fileBytes) {
        if (storedBytes + fileBytes <= settings.budgetBytes()) {
            return true;
        }
        long evictable = 0;
        for (Block b : blocks.values()) {
            if (b.pins == 0 && b.download == null) {
                evictable += b.fileBytes;
            }
        }
        if (storedBytes - evictable + fileBytes > settings.budgetBytes()) {
            return false;
        }
        Iterator<Map.Entry<BlockId, Block>> it = blocks.entrySet().iterator();
        while (storedBytes + fileBytes > settings.budgetBytes() && it.hasNext()) {
            Block b = it.next().getValue();
            if (b.pins == 0 && b.download == null) {
                it.remove();
                b.removed = true;
                storedBytes -= b.fileBytes;
                evicted++;
                try {
                    Files.deleteIfExists(b.file);
                } catch (IOException e) {
                    throw new UncheckedIOException(b.file + ": cannot evict", e);
                }
            }
        }
        return true;
    }

    private boolean isRemoved(Block b) {
        lock.lock();
        try {
            return b.removed;
        } finally {
            lock.unlock();
        }
    }

    /** Holds the lock. */
    private void unpin(List<Block> pinned) {
        for (Block b : pinned) {
            if (--b.pins == 0) {
                pinnedBytes -= b.fileBytes;
            }
        }
    }

    private long first(ByteRange r) {
        return r.offset() / settings.blockBytes();
    }

    private long last(ByteRange r) {
        return Math.max(r.offset(), r.end() - 1) / settings.blockBytes();
    }

    private long blockLength(CachedObject object, long index) {
        return Math.min(settings.blockBytes(), object.sizeBytes() - index * settings.blockBytes());
    }

    private static void checkWithin(CachedObject object, ByteRange r) {
        if (r.end() > object.sizeBytes()) {
            throw new IllegalArgumentException(object.key() + ": range " + r.header() + " (expected: within its "
                    + object.sizeBytes() + " bytes)");
        }
    }

    /** Releases the folder's lock; blocks stay on disk for the next run. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        try {
            fileLock.release();
            lockChannel.close();
        } catch (IOException e) {
            // the lock goes with the process anyway
        }
    }
}
