package dev.stoker.store;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A test input that is costly to make (a dataset on disk, its shards), made on first use and kept for the rest of
 * the test JVM, so every test class that needs it shares one copy.
 */
public final class MadeOnce<T> {
    /** Makes the input; an {@link IOException} fails the test that asked first, and the next one tries again. */
    @FunctionalInterface
    public interface Maker<T> {
        T make() throws IOException;
    }

    private final Maker<T> maker;
    private T value;

    public MadeOnce(Maker<T> maker) {
        this.maker = maker;
    }

    public synchronized T get() {
        if (value == null) {
            try {
                value = maker.make();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return value;
    }
}
