package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.store.remote.internal.Retry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The block cache over a real HTTP server: a block is downloaded once (a second read, and a rerun in a new cache
 * on the same folder, send nothing), a damaged cached block is caught by its checksum and downloaded again, the
 * budget is never exceeded, blocks in use are never evicted, and a crash's {@code .part} files are never read.
 */
@Timeout(60)
class BlockCacheTest {
    private static final int BLOCK = 16 << 10;
    private static final int OBJECT_BYTES = 200_000; // 13 blocks, the last one short

    @TempDir
    Path served;
    @TempDir
    Path cacheDir;
    private byte[] object;
    private FolderHttpServer server;
    private HttpBlobStore store;

    @BeforeEach
    void serveObject() throws IOException {
        object = new byte[OBJECT_BYTES];
        new Random(17).nextBytes(object);
        Files.write(served.resolve("obj.bin"), object);
        server = new FolderHttpServer(served, true);
        store = HttpBlobStore.open(server.uri(), Retry.standard());
    }

    @AfterEach
    void stopServing() throws IOException {
        try (FolderHttpServer stopping = server) {
            store.close();
        }
    }

    private BlockCache open(long budgetBytes) throws IOException {
        return BlockCache.open(new BlockCache.Settings(cacheDir, budgetBytes, BLOCK));
    }

    /** The served object, version v1, as {@code cache} names it. */
    private BlockCache.CachedObject served(BlockCache cache) {
        return cache.object(store, "obj.bin", OBJECT_BYTES, "v1");
    }

    private static byte[] slice(byte[] bytes, ByteRange r) {
        return Arrays.copyOfRange(bytes, (int) r.offset(), (int) r.end());
    }

    @Test
    void aBlockIsDownloadedOnceAndARerunReadsItFromDisk() throws IOException {
        ByteRange range = new ByteRange(BLOCK - 100, BLOCK + 200); // spans blocks 0, 1 and 2
        try (BlockCache cache = open(1 << 20)) {
            BlockCache.CachedObject obj = served(cache);
            assertThat(cache.read(obj, range)).isEqualTo(slice(object, range));
            assertThat(store.stats().requests()).as("three adjacent missing blocks: one GET").isEqualTo(1);
            assertThat(cache.read(obj, new ByteRange(BLOCK + 5, 10))).isEqualTo(slice(object, new ByteRange(BLOCK + 5, 10)));
            assertThat(store.stats().requests()).isEqualTo(1);
            assertThat(cache.stats().misses()).isEqualTo(3);
            assertThat(cache.stats().hits()).isEqualTo(1);
            assertThat(cache.stats().storedBytes()).isEqualTo(3L * (BLOCK + 4));
        }
        try (Stream<Path> files = Files.walk(cacheDir)) {
            assertThat(files.map(Path::toString).filter(f -> f.endsWith(".part"))).isEmpty();
        }
        try (BlockCache again = open(1 << 20)) {
            BlockCache.CachedObject obj = served(again);
            assertThat(again.read(obj, range)).isEqualTo(slice(object, range));
            assertThat(store.stats().requests()).as("the rerun finds every block on disk").isEqualTo(1);
            assertThat(again.stats().hitRate()).isEqualTo(1.0);
            // Another version of the object (re-ingested) never meets the old blocks.
            BlockCache.CachedObject v2 = again.object(store, "obj.bin", OBJECT_BYTES, "v2");
            assertThat(again.read(v2, range)).isEqualTo(slice(object, range));
            assertThat(store.stats().requests()).isEqualTo(2);
        }
    }

    @Test
    void aDamagedCachedBlockIsDownloadedAgainAndCounted() throws IOException {
        ByteRange range = new ByteRange(0, 3 * BLOCK);
        try (BlockCache cache = open(1 << 20)) {
            BlockCache.CachedObject obj = served(cache);
            cache.read(obj, range);
            Path block;
            try (Stream<Path> files = Files.walk(cacheDir)) {
                block = files.filter(f -> f.getFileName().toString().equals("1.blk")).findFirst().orElseThrow();
            }
            byte[] bytes = Files.readAllBytes(block);
            bytes[100] ^= 0x40;
            Files.write(block, bytes);
            Files.delete(block.resolveSibling("2.blk")); // gone behind the cache's back: the same treatment

            assertThat(cache.read(obj, range)).isEqualTo(slice(object, range));
            assertThat(cache.stats().corrupt()).isEqualTo(2);
            assertThat(store.stats().requests()).isEqualTo(3);
            assertThat(cache.read(obj, range)).as("stored again, whole").isEqualTo(slice(object, range));
            assertThat(store.stats().requests()).isEqualTo(3);
            assertThat(cache.stats().corrupt()).isEqualTo(2);
        }
    }

    @Test
    void theBudgetHoldsAndBlocksInUseAreNeverEvicted() throws IOException {
        long budget = 4L * (BLOCK + 4);
        try (BlockCache cache = open(budget)) {
            BlockCache.CachedObject obj = served(cache);
            ByteRange held = new ByteRange(0, 2 * BLOCK);
            try (BlockCache.Pin pin = cache.pin(obj, List.of(held))) {
                assertThat(pin.bytes()).isEqualTo(2L * (BLOCK + 4));
                assertThat(cache.stats().fetchedAhead()).isEqualTo(2);
                for (int b = 2; b < 13; b++) { // every other block, through the two free slots
                    ByteRange r = new ByteRange((long) b * BLOCK, Math.min(BLOCK, OBJECT_BYTES - b * BLOCK));
                    assertThat(cache.read(obj, r)).isEqualTo(slice(object, r));
                    assertThat(cache.stats().storedBytes()).isLessThanOrEqualTo(budget);
                }
                long before = store.stats().requests();
                assertThat(cache.read(obj, held)).isEqualTo(slice(object, held));
                assertThat(store.stats().requests()).as("the pinned blocks stayed").isEqualTo(before);
                assertThat(cache.stats().evicted()).isGreaterThanOrEqualTo(9);
                assertThat(cache.stats().pinnedBytes()).isEqualTo(2L * (BLOCK + 4));
            }
            assertThat(cache.stats().pinnedBytes()).isZero();
        }
    }

    @Test
    void whenEveryCachedBlockIsInUseABlockIsHandedOverUnstored() throws IOException {
        long budget = 2L * (BLOCK + 4);
        try (BlockCache cache = open(budget)) {
            BlockCache.CachedObject obj = served(cache);
            try (BlockCache.Pin pin = cache.pin(obj, List.of(new ByteRange(0, 2 * BLOCK)))) {
                ByteRange r = new ByteRange(5L * BLOCK + 7, 3000);
                assertThat(cache.read(obj, r)).isEqualTo(slice(object, r));
                assertThat(cache.stats().uncached()).isEqualTo(1);
                assertThat(cache.stats().storedBytes()).isEqualTo(budget);
            }
        }
    }

    @Test
    void oneBatchsWorkingSetMustFitTheBudget() throws IOException {
        try (BlockCache cache = open(100_000)) {
            assertThatThrownBy(() -> cache.requireRoomForBatch(8, 40_000))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cache budget 100000 bytes")
                    .hasMessageContaining("working set, " + 8 * 4 * (BLOCK + 4) + " bytes")
                    .hasMessageContaining("8 samples × 4 blocks of " + BLOCK + " bytes");
            cache.requireRoomForBatch(1, 40_000);
        }
    }

    @Test
    void aCrashsPartFilesAreDeletedAndAFolderServesOneProcess() throws IOException {
        Path part = cacheDir.resolve("blocks").resolve("0123456789abcdef01234567").resolve("3.blk.99.part");
        Files.createDirectories(part.getParent());
        Files.write(part, new byte[100]);
        try (BlockCache cache = open(1 << 20)) {
            assertThat(part).doesNotExist();
            assertThat(cache.stats().storedBytes()).isZero();
            assertThatThrownBy(() -> open(1 << 20))
                    .isInstanceOf(IOException.class).hasMessageContaining(cacheDir.toString()).hasMessageContaining("in use");
        }
    }

    @Test
    void theFoldersItMakesAndTheBlocksItStoresAreTheUsersAlone() throws IOException {
        Path made = cacheDir.resolve("new/cache");
        try (BlockCache cache = BlockCache.open(new BlockCache.Settings(made, 1 << 20, BLOCK))) {
            cache.read(served(cache), new ByteRange(0, 2 * BLOCK));
        }
        try (Stream<Path> paths = Files.walk(cacheDir.resolve("new"))) {
            List<Path> all = paths.toList();
            assertThat(all).filteredOn(Files::isRegularFile).hasSizeGreaterThanOrEqualTo(3); // the lock, two blocks
            for (Path path : all) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
                        .as(path.toString()).isEqualTo(Files.isDirectory(path) ? "rwx------" : "rw-------");
            }
        }
    }

    @Test
    void aFolderThatCannotBeMadeIsAnErrorNamingItAndWhy() throws IOException {
        Path file = Files.writeString(cacheDir.resolve("a-file"), "not a folder");
        BlockCache.Settings settings = new BlockCache.Settings(file.resolve("cache"), 1 << 20, BLOCK);

        assertThatThrownBy(() -> BlockCache.open(settings)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.resolve("cache").toString())
                .hasMessageContaining("cannot make the block cache folder")
                .hasMessageContaining("FileSystemException");
    }
}
