package dev.stoker.store.remote;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * The block cache's entries under its byte budget: least recently used first, pinned ones (in use) never evicted,
 * each new block's bytes reserved before its download so concurrent downloads never overrun the budget. Also keeps
 * the cache's counters. Thread-safe: one lock guards entries, bytes and counters.
 */
final class BlockIndex {
    record BlockId(String object, long index) {
    }

    /** A block's entry; guarded by the index's lock. */
    static final class Block {
        final BlockId id;
        final Path file;
        final long fileBytes;
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

    /**
     * Blocks {@code first..} of one object, pinned: {@code entries[i]} null when block i found no room,
     * {@code mine[i]} when the caller downloads it, {@code awaited[i]} when another call is downloading it.
     */
    record Reservation(Block[] entries, boolean[] mine, boolean[] awaited, List<Block> pinned, long pinBytes) {
    }

    private final BlockCache.Settings settings;
    private final Path blocksDir;
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

    BlockIndex(BlockCache.Settings settings) {
        this.settings = settings;
        this.blocksDir = settings.dir().resolve("blocks");
    }

    /** Where the block files are: {@code blocks/} in the cache folder. */
    Path blocksDir() { return blocksDir; }

    /** Registers the blocks a previous run stored, in the order given (first in line for eviction first). */
    void load(List<BlockFiles.Found> found) {
        locked(() -> {
            for (BlockFiles.Found f : found) {
                BlockId id = new BlockId(f.object(), f.index());
                blocks.put(id, new Block(id, f.file(), f.bytes()));
                storedBytes += f.bytes();
            }
            makeRoom(0);
        });
    }

    /**
     * Looks up and pins {@code count} blocks of {@code object} from {@code first}; a missing one gets an entry (and
     * its bytes of the budget) when room can be made, and is the caller's to download either way.
     * {@code wantData}: a read (counted as hits and misses), else a read ahead.
     */
    Reservation reserve(String object, long first, int count, LongUnaryOperator fileBytesOf, boolean wantData)
            throws IOException {
        Block[] entries = new Block[count];
        boolean[] mine = new boolean[count];
        boolean[] awaited = new boolean[count];
        List<Block> pinned = new ArrayList<>(count);
        long pinBytes = 0;
        lock.lock();
        try {
            if (closed) {
                throw new IOException(settings.dir() + ": block cache closed");
            }
            for (int i = 0; i < count; i++) {
                BlockId id = new BlockId(object, first + i);
                Block b = blocks.get(id);
                long fileBytes = fileBytesOf.applyAsLong(first + i);
                if (b == null) {
                    mine[i] = true;
                    b = reserveNew(id, fileBytes);
                    if (wantData) {
                        misses++;
                    } else {
                        fetchedAhead++;
                    }
                } else {
                    awaited[i] = b.download != null;
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
        return new Reservation(entries, mine, awaited, pinned, pinBytes);
    }

    /** Holds the lock. */
    private Block reserveNew(BlockId id, long fileBytes) {
        if (!makeRoom(fileBytes)) {
            uncached++;
            return null;
        }
        Block b = new Block(id, BlockFiles.path(blocksDir, id.object(), id.index()), fileBytes);
        b.download = new CompletableFuture<>();
        blocks.put(id, b);
        storedBytes += fileBytes; // reserved now, so concurrent downloads never overrun the budget
        return b;
    }

    void unpin(List<Block> pinned) {
        locked(() -> {
            for (Block b : pinned) {
                if (--b.pins == 0) {
                    pinnedBytes -= b.fileBytes;
                }
            }
        });
    }

    /** The block's file is in place: its download is over and its waiters are told. */
    void stored(Block b) {
        locked(() -> {
            CompletableFuture<Void> done = b.download;
            b.download = null;
            if (done != null) {
                done.complete(null);
            }
        });
    }

    /** A download that failed: the entry is dropped (a later read tries again), its waiters told. */
    void abandon(Block b) {
        locked(() -> {
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
        });
    }

    /** The download of {@code b} in flight; null when none is. */
    CompletableFuture<Void> download(Block b) {
        return lockedGet(() -> b.download);
    }

    boolean isRemoved(Block b) {
        return lockedGet(() -> b.removed);
    }

    /** A ranged GET of {@code bytes} bytes. */
    void fetched(long bytes) {
        locked(() -> {
            requests++;
            bytesFetched += bytes;
        });
    }

    /** {@code b}'s file failed its check (counted unless the entry was already dropped: then it is merely gone). */
    void damaged(Block b) {
        locked(() -> {
            if (!b.removed) {
                corrupt++;
            }
        });
    }

    BlockCache.Stats stats() {
        return lockedGet(() -> new BlockCache.Stats(hits, misses, fetchedAhead, requests, bytesFetched, corrupt, evicted,
                uncached, storedBytes, pinnedBytes, settings.budgetBytes()));
    }

    /** Later reservations fail. */
    void close() {
        locked(() -> closed = true);
    }

    private void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    private <T> T lockedGet(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
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
}
