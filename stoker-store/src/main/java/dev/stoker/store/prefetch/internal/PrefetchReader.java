package dev.stoker.store.prefetch.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads one item for a {@link Prefetcher}. Its methods may be called from many threads at once.
 *
 * @param <K> the key of an item (a sample index, a path)
 * @param <V> what a read gives (bytes, a segment)
 */
public interface PrefetchReader<K, V> {
    /**
     * An upper bound of the bytes {@link #read} will hold for {@code key}; cheap (an index entry, a
     * stat). A read holding more fails rather than overrun the budget.
     */
    long sizeBytes(K key) throws IOException;

    /** Reads the item; should stop promptly when interrupted. */
    V read(K key) throws IOException;

    /** Bytes {@code value} holds. */
    long byteSize(V value);

    /** Frees an item nobody will take (read ahead, then dropped or closed). */
    default void release(V value) {
    }

    /** Whole files into heap arrays; with {@code cold}, each file's cached pages are evicted before it is read. */
    static PrefetchReader<Path, byte[]> files(boolean cold) {
        return new PrefetchReader<>() {
            @Override
            public long sizeBytes(Path file) throws IOException {
                return Files.size(file);
            }

            @Override
            public byte[] read(Path file) throws IOException {
                if (cold) {
                    PageCache.evict(file);
                }
                return Files.readAllBytes(file);
            }

            @Override
            public long byteSize(byte[] value) {
                return value.length;
            }
        };
    }
}
