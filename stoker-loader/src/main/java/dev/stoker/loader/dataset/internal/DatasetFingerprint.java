package dev.stoker.loader.dataset.internal;

import dev.stoker.loader.dataset.SamplerState;

/**
 * What an epoch order depends on in a dataset: its sample count and the sizes of its groups, in order.
 * A saved {@link SamplerState} is only valid for a dataset with the same fingerprint.
 *
 * @param samples   samples in the dataset
 * @param groups    groups (shards, files) in the dataset
 * @param sizesHash 64-bit hash of the group sizes in group order, as 16 hex digits
 */
public record DatasetFingerprint(int samples, int groups, String sizesHash) {

    @Override
    public String toString() {
        return samples + " samples in " + groups + " groups (group sizes hash " + sizesHash + ")";
    }
}
