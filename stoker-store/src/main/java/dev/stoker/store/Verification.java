package dev.stoker.store;

import dev.stoker.store.internal.ShardVerifier;

/**
 * When the readers of a {@link ShardDataset} check the CRC32C of the packets they read. A packet that fails
 * its check is never marked checked, so a damaged record fails every read of it under either policy; and
 * {@code stoker verify} ({@link ShardVerifier}) checks every byte whatever the policy.
 *
 * <p>The check reads the whole stored packet, so for {@code raw} shards it costs about as much as the copy it
 * guards (a CRC of the full stored frame against a copy of a crop of it): checking on every read costs raw up
 * to half its read bandwidth. Hence the default {@link #FIRST_READ}.
 */
public enum Verification {
    /**
     * Each packet the first time a reader of this opened dataset reads it; later reads of it trust the bytes.
     * Damage present when a packet is first read is always caught; damage that appears in a shard file
     * while it is open (a device returning other bytes after a page-cache eviction) is caught by
     * {@link #EVERY_READ}, by opening the dataset again, or by {@code stoker verify}. The default.
     */
    FIRST_READ,
    /** Each packet on every read: the paranoid setting, at the price of a CRC32C of every stored byte read. */
    EVERY_READ
}
