package dev.stoker.store.prefetch;

import dev.stoker.store.prefetch.internal.Prefetcher;

/**
 * A snapshot of a {@link Prefetcher}.
 *
 * @param requests      {@link Prefetcher#take} calls
 * @param hits          requests served from prefetched data (read ahead, or being read when asked)
 * @param waits         of the hits, those that had to wait for their read to finish (prefetch not far enough ahead)
 * @param misses        requests read on demand: not prefetched (consumer ahead of the prefetcher, an item over
 *                      the budget, or a key off the sequence)
 * @param bytesRead     bytes read, ahead and on demand
 * @param heldBytes     bytes held now: reads in flight (at their announced size) and read items not yet taken
 * @param heldItems     items held now
 * @param peakHeldBytes the most bytes ever held at once (never above the budget)
 * @param budgetBytes   the byte budget
 * @param dropped       items read ahead and never taken (the consumer went past them), freed
 * @param tooLarge      upcoming items larger than the whole budget, or whose size could not be read (a damaged
 *                      record), left to be read on demand
 * @param meanOccupancy bytes held on average since the start (time-weighted), as a share of the budget
 */
public record PrefetchStats(long requests, long hits, long waits, long misses, long bytesRead, long heldBytes,
                            int heldItems, long peakHeldBytes, long budgetBytes, long dropped, long tooLarge,
                            double meanOccupancy) {

    /** Share of requests served from prefetched data; 0 before the first request. */
    public double hitRate() {
        return requests == 0 ? 0 : (double) hits / requests;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "prefetch: %d requests, hit rate %.1f%% (%d waited), %d misses, %d bytes read, holding %d items / %d of %d bytes (peak %d, mean occupancy %.1f%%), %d dropped, %d too large",
                requests, 100 * hitRate(), waits, misses, bytesRead, heldItems, heldBytes, budgetBytes, peakHeldBytes,
                100 * meanOccupancy, dropped, tooLarge);
    }
}
