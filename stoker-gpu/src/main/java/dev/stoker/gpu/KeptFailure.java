package dev.stoker.gpu;

/**
 * A failure caught where it could not be thrown (a worker thread, a native upcall) and kept for the thread that
 * waits on the work: that thread throws it.
 */
final class KeptFailure {
    private KeptFailure() {
    }

    /**
     * Throws {@code failure} as it is when unchecked, else wrapped in an {@link IllegalStateException}; returns when
     * there is none (null).
     */
    static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }
}
