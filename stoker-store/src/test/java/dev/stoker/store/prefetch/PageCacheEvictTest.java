package dev.stoker.store.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.store.prefetch.internal.PageCache;
import dev.stoker.store.prefetch.internal.PrefetchReader;
import dev.stoker.store.prefetch.internal.Prefetcher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageCacheEvictTest {

    @Test
    void evictDropsAFlushedFilesPagesFromThePageCache(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("cold.bin");
        int bytes = 4 << 20;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.allocate(bytes);
            for (int i = 0; i < bytes; i += 4096) {
                data.put(i, (byte) i);
            }
            while (data.hasRemaining()) {
                ch.write(data);
            }
            ch.force(true); // dirty pages cannot be dropped
        }
        Files.readAllBytes(file);
        PageCache.Residency warm = PageCache.residency(file);
        assertThat(warm.pages()).isEqualTo((bytes + warm.pageBytes() - 1) / warm.pageBytes());
        assertThat(warm.residentPages()).isBetween(0L, warm.pages());

        PageCache.evict(file);
        PageCache.Residency cold = PageCache.residency(file);
        System.out.printf("%s: resident %d/%d pages after reading, %d/%d after evict%n", file, warm.residentPages(),
                warm.pages(), cold.residentPages(), cold.pages());
        // Eviction is advice: a file system kept in memory (tmpfs) keeps its pages. Where the read left
        // the file cached and eviction took effect, nothing (or next to nothing) stays.
        if (warm.residentFraction() > 0.9 && cold.residentPages() < warm.residentPages()) {
            assertThat(cold.residentFraction()).isLessThan(0.1);
        }
        assertThat(Files.readAllBytes(file)).hasSize(bytes); // still readable, from the device
    }

    @Test
    void evictAndResidencyOfAnEmptyFileWork(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("empty"));
        PageCache.evict(file);
        assertThat(PageCache.residency(file).pages()).isZero();
    }

    @Test
    void aMissingFileIsNamedWithTheSystemsReason(@TempDir Path dir) {
        assertThatThrownBy(() -> PageCache.evict(dir.resolve("missing.mp4")))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("missing.mp4")
                .hasMessageContaining("No such file or directory (errno 2)");
    }

    @Test
    void coldFileReaderEvictsThenReads(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("v.mp4"), new byte[10_000]);
        try (Prefetcher<Path, byte[]> ahead = Prefetcher.start(java.util.List.of(file).iterator(), PrefetchReader.files(true), 2, 1 << 20)) {
            assertThat(ahead.take(file)).hasSize(10_000);
            assertThat(ahead.stats().bytesRead()).isEqualTo(10_000);
            assertThat(ahead.stats().hits()).isEqualTo(1);
        }
    }
}
