package dev.stoker.store.prefetch.internal;

/** One item a {@link Prefetcher} scheduled: its read, its result, who claimed it. Guarded by the prefetcher's lock. */
public final class PrefetchEntry<K, V> {
    final K key;
    final long sequence;
    final long reservedBytes;
    Thread thread;
    boolean claimed;
    boolean abandoned;
    V value;
    Throwable failure;
    boolean done;
    /** Not read ahead (larger than the budget, or its size unreadable): its taker reads it. */
    boolean onDemand;

    PrefetchEntry(K key, long sequence, long reservedBytes) {
        this.key = key;
        this.sequence = sequence;
        this.reservedBytes = reservedBytes;
    }
}
