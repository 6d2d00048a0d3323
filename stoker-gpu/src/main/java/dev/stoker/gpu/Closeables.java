package dev.stoker.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Freeing many things at once, as every pool and loader here does on close: each one is freed even when
 * an earlier one fails, and the first failure is thrown after all were tried.
 */
final class Closeables {
    private Closeables() {
    }

    /**
     * Applies {@code release} to every item, then throws the first {@link RuntimeException} it threw, the later
     * ones added to it as suppressed.
     */
    static <T> void releaseAll(Iterable<T> items, Consumer<? super T> release) {
        List<RuntimeException> failures = new ArrayList<>();
        for (T item : items) {
            try {
                release.accept(item);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.getFirst();
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    /** Closes every resource (nulls skipped), as {@link #closeUnchecked} does. */
    static void closeAll(AutoCloseable... resources) {
        releaseAll(Arrays.asList(resources), r -> {
            if (r != null) {
                closeUnchecked(r, r.toString());
            }
        });
    }

    /** Closes {@code resource}; a checked failure is thrown as an {@link IllegalStateException} naming {@code what}. */
    static void closeUnchecked(AutoCloseable resource, String what) {
        try {
            resource.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing " + what + " failed", e);
        }
    }
}
