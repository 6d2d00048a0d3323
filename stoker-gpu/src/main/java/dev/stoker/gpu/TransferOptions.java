package dev.stoker.gpu;

/**
 * How batches go to the device.
 *
 * @param prefetchDepth   batches copied ahead of the consumer (2: batch k+1 and k+2 are on their way while
 *                        the consumer works on k); the stage holds {@code prefetchDepth + 1} device buffers
 * @param awaitOnDelivery {@code true}: a batch is handed out once its copy has completed, usable on any
 *                        stream; {@code false}: at once, and the consumer orders its work after
 *                        {@link DeviceBatch#ready()} itself (e.g. {@code cuStreamWaitEvent})
 */
record TransferOptions(int prefetchDepth, boolean awaitOnDelivery) {
    public static final int DEFAULT_PREFETCH_DEPTH = 2;

    public TransferOptions {
        if (prefetchDepth < 1) {
            throw new IllegalArgumentException("prefetchDepth: " + prefetchDepth + " (expected: 1+)");
        }
    }

    public static TransferOptions defaults() {
        return new TransferOptions(DEFAULT_PREFETCH_DEPTH, true);
    }

    public TransferOptions withPrefetchDepth(int depth) {
        return new TransferOptions(depth, awaitOnDelivery);
    }

    public TransferOptions withAwaitOnDelivery(boolean await) {
        return new TransferOptions(prefetchDepth, await);
    }
}
