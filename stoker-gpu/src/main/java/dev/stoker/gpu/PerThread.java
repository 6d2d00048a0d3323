package dev.stoker.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * One resource per worker thread (a stream, a decode session), made on the thread's first use and kept for the
 * stage's life; {@link #close()} closes every one made, from whichever thread closes the stage.
 */
final class PerThread<T extends AutoCloseable> implements AutoCloseable {
    private final Queue<T> made = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<T> own;

    PerThread(Supplier<? extends T> make) {
        this.own = ThreadLocal.withInitial(() -> {
            T resource = make.get();
            made.add(resource);
            return resource;
        });
    }

    /** The calling thread's resource, made now if it has none. */
    T get() { return own.get(); }

    /** Closes every resource made so far, all of them even when one fails; then throws the first failure. */
    @Override
    public void close() {
        List<T> all = new ArrayList<>();
        T resource;
        while ((resource = made.poll()) != null) {
            all.add(resource);
        }
        Closeables.closeAll(all.toArray(AutoCloseable[]::new));
    }
}
