package dev.stoker.store.loader;

/**
 * How {@link ShardLoader} reads the shards ahead of its decoders. The epoch order is known, so the bytes
 * of the next samples' clips can be brought into memory ({@link java.lang.foreign.MemorySegment#load()} on
 * the mapped slice, on virtual threads) while earlier ones decode: up to {@code batchesAhead} batches ahead,
 * never holding more than {@code budgetBytes} read but not yet decoded.
 *
 * @param budgetBytes  bytes read ahead and not yet consumed, at most; {@code 0} turns reading ahead off
 * @param batchesAhead how far ahead to read, in batches (1+)
 * @param coldCache    drop each clip's bytes from the mapping and the page cache just before they are read
 *                     ({@code posix_fadvise(DONTNEED)}): every read comes from the device (benchmarks)
 */
public record ReadAhead(long budgetBytes, int batchesAhead, boolean coldCache) {
    /** The default budget: 64 MiB, a modest share of any training machine's memory. */
    public static final long DEFAULT_BUDGET_BYTES = 64L << 20;

    public ReadAhead {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes: " + budgetBytes + " (expected: 0 for off, or 1+)");
        }
        if (batchesAhead < 1) {
            throw new IllegalArgumentException("batchesAhead: " + batchesAhead + " (expected: 1+)");
        }
    }

    /** 4 batches ahead within {@link #DEFAULT_BUDGET_BYTES}, warm cache. */
    public static ReadAhead defaults() {
        return new ReadAhead(DEFAULT_BUDGET_BYTES, 4, false);
    }

    /** No reading ahead: each decoder faults its clip's pages in itself. */
    public static ReadAhead off() {
        return new ReadAhead(0, 1, false);
    }

    public ReadAhead withBudget(long budgetBytes) {
        return new ReadAhead(budgetBytes, batchesAhead, coldCache);
    }

    public ReadAhead withBatchesAhead(int batchesAhead) {
        return new ReadAhead(budgetBytes, batchesAhead, coldCache);
    }

    public ReadAhead withColdCache(boolean coldCache) {
        return new ReadAhead(budgetBytes, batchesAhead, coldCache);
    }

    public boolean enabled() {
        return budgetBytes > 0;
    }
}
