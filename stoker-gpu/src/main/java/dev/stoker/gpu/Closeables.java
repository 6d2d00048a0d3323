package dev.stoker.gpu;

import java.util.function.Consumer;

/**
 * Freeing many things at once, as every pool and loader here does on close: each one is freed even when
 * an earlier one fails, and the first failure is thrown after all were tried.
 */
final class Closeables {
    private Closeables() {
    }

    /** Applies {@code release} to every item, then throws the first {@link RuntimeException} it threw. */
    static <T> void releaseAll(Iterable<T> items, Consumer<? super T> release) {
        RuntimeException first = null;
        for (T item : items) {
            try {
                release.accept(item);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Closes every resource (nulls skipped); a checked failure is thrown as an {@link IllegalStateException}. */
    static void closeAll(AutoCloseable... resources) {
        releaseAll(java.util.Arrays.asList(resources), r -> {
            if (r == null) {
                return;
            }
            try {
                r.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing " + r + " failed", e);
            }
        });
    }
}
