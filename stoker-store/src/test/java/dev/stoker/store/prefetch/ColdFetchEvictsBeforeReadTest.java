package dev.stoker.store.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.store.prefetch.internal.EvictBeforeRead;
import dev.stoker.store.prefetch.internal.PageCache;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --cold} on video files: with {@link EvictBeforeRead} as the loader's fetch hook, each file's pages are
 * dropped inside the fetch stage just before that file is read, every time it is read (every epoch), as
 * {@code mincore} shows: cached when the hook is reached (read in by the test, then by the previous epoch),
 * none left after eviction, cached again after the loader's read. A hook that fails fails only its sample,
 * naming the file; with fetch in a child JVM the hook is made and run there.
 */
@Timeout(120)
class ColdFetchEvictsBeforeReadTest {
    @TempDir
    static Path root;
    static Dataset dataset;

    /** What {@link Recording} saw at each call: the file and its resident pages before and after eviction. */
    record Call(Path file, long pages, long residentBefore, long residentAfter) {
    }

    static final Queue<Call> CALLS = new ConcurrentLinkedQueue<>();

    /** {@link EvictBeforeRead}, with the page cache's state around it recorded (made by class name in fetch). */
    public static final class Recording implements FetchHook {
        private final EvictBeforeRead evict = new EvictBeforeRead();

        @Override
        public void beforeRead(Path file) throws IOException {
            long before = PageCache.residency(file).residentPages();
            evict.beforeRead(file);
            PageCache.Residency after = PageCache.residency(file);
            CALLS.add(new Call(file, after.pages(), before, after.residentPages()));
        }
    }

    /**
     * Refuses the first video of each class ({@code <class>_000.*}), decided from the name alone so that it
     * works in a child JVM: the fetch of those files fails before reading them.
     */
    public static final class RefusingFirstOfEachClass implements FetchHook {
        static boolean refuses(Path file) {
            return file.getFileName().toString().contains("_000.");
        }

        @Override
        public void beforeRead(Path file) throws IOException {
            if (refuses(file)) {
                throw new IOException("refused for the test");
            }
        }
    }

    @BeforeAll
    static void demo() throws IOException {
        DemoDataset.create(root, DemoSpec.small(2, 2, 2.0));
        dataset = Dataset.open(root);
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 1).size(48, 48, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 48)
                .batch(2, false, BatchLayout.NTHWC).order(5, true, 2).build();
    }

    @Test
    void eachFileIsEvictedInFetchJustBeforeEveryRead() throws IOException {
        List<Path> files = dataset.entries().stream().map(VideoEntry::path).distinct().toList();
        for (Path f : files) {
            try (FileChannel channel = FileChannel.open(f, StandardOpenOption.WRITE)) {
                channel.force(true); // just written: dirty pages cannot be dropped
            }
            Files.readAllBytes(f);
        }
        assumeThat(files).allSatisfy(f -> assertThat(PageCache.residency(f).residentFraction())
                .as("%s cached after reading it (not so under memory pressure)", f).isGreaterThan(0.9));
        CALLS.clear();
        long clips = 0;
        // One fetch worker: with several, a file's second-epoch fetch can start while another worker is between
        // its first-epoch eviction and read, and then finds it (rightly) not cached.
        LoaderOptions oneFetcher = options().toBuilder().fetchHook(Recording.class).config(PipelineConfig.EMPTY
                .withStage("fetch", StageConfig.EMPTY.withConcurrency(1))).build();
        try (VideoLoader loader = VideoLoader.open(dataset, oneFetcher)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    clips += batch.clipCount();
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        assertThat(clips).isEqualTo(2L * files.size());

        // once per file per epoch, in the fetch stage
        Map<Path, List<Call>> byFile = CALLS.stream().collect(Collectors.groupingBy(Call::file));
        assertThat(byFile.keySet()).containsExactlyInAnyOrderElementsOf(files);
        assertThat(byFile.values()).allSatisfy(calls -> assertThat(calls).hasSize(2));
        for (Call call : CALLS) {
            // cached when fetch got to it: read by the test, or by the fetch of the previous epoch
            assertThat(call.residentBefore()).as("resident pages of %s before eviction", call.file())
                    .isGreaterThan(call.pages() / 2);
            assertThat(call.residentAfter()).as("resident pages of %s after eviction", call.file()).isZero();
        }
        // and read after the last eviction: the reads came after the hook, from the device into the cache
        for (Path f : files) {
            assertThat(PageCache.residency(f).residentFraction()).as("%s after the run", f).isGreaterThan(0.9);
        }
    }

    @Test
    void aFailingHookFailsOnlyItsFilesNamingThem() {
        assertFailsOnlyRefusedFiles(options().toBuilder().order(5, true, 1).build());
    }

    @Test
    void theHookIsMadeInTheChildJvmWhenFetchRunsThere() {
        assertFailsOnlyRefusedFiles(options().toBuilder().order(5, true, 1).splitAfter(dev.stoker.loader.VideoStage.FETCH).build());
    }

    private static void assertFailsOnlyRefusedFiles(LoaderOptions options) {
        List<Path> refused = dataset.entries().stream().map(VideoEntry::path)
                .filter(RefusingFirstOfEachClass::refuses).toList();
        assertThat(refused).hasSize(2).hasSizeLessThan(dataset.size());
        try (VideoLoader loader = VideoLoader.open(dataset, options.toBuilder().fetchHook(RefusingFirstOfEachClass.class).build())) {
            long clips = 0;
            for (ClipBatch batch : loader) {
                try (batch) {
                    clips += batch.clipCount();
                    assertThat(batch.clips()).allSatisfy(c -> assertThat(refused).doesNotContain(c.path()));
                }
            }
            assertThat(clips).isEqualTo(dataset.size() - refused.size());
            List<Failure> failures = loader.pipeline().failures();
            assertThat(failures).hasSize(refused.size()).allSatisfy(f -> {
                assertThat(f.stage()).endsWith("fetch");
                assertThat(f.reason()).isEqualTo("io-error");
                assertThat(f.cause().getMessage()).contains("RefusingFirstOfEachClass").contains("refused for the test");
            });
            for (Path file : refused) {
                assertThat(failures).anySatisfy(f -> assertThat(f.cause().getMessage()).contains(file.toString()));
            }
        }
    }

    @Test
    void aMemberOfATarArchiveIsEvictedAsItsRangeOfTheArchive(@TempDir Path dir) throws Exception {
        Path archive = dir.resolve("shard.tar");
        Process tar = new ProcessBuilder("tar", "-cf", archive.toString(), "-C", root.toString(), ".").inheritIO().start();
        assertThat(tar.waitFor()).isZero();
        Dataset members = Dataset.open(archive);
        assertThat(members.size()).isEqualTo(dataset.size());
        try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.WRITE)) {
            channel.force(true); // just written: dirty pages cannot be dropped
        }
        Files.readAllBytes(archive);
        PageCache.Residency whole = PageCache.residency(archive);
        assumeThat(whole.residentFraction()).as("the archive cached after reading it").isGreaterThan(0.9);
        new EvictBeforeRead().beforeRead(members.get(0).path());
        PageCache.Residency after = PageCache.residency(archive);
        long memberPages = FileStamp.of(members.get(0).path()).sizeBytes() / whole.pageBytes();
        // The kernel drops the cached pages wholly inside the range: the member's, not the rest of the archive's.
        assertThat(whole.residentPages() - after.residentPages()).as("pages dropped, of the member's %d", memberPages)
                .isBetween(memberPages / 2, memberPages);
        new EvictBeforeRead().beforeRead(archive.resolve("no/such.mp4")); // left to the read, which names it
    }

    @Test
    void aMissingFileIsLeftToTheReadToReport(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("gone.mp4");
        new EvictBeforeRead().beforeRead(missing); // no exception: the fetch's read names it as not-found
        assertThat(Files.exists(missing)).isFalse();
    }

}
