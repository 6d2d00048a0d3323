package dev.stoker.loader.dataset.internal;

import dev.stoker.loader.dataset.EpochSampler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The shape of any indexed dataset as an {@link EpochSampler} sees it: samples {@code 0..size-1}, each in
 * a group (a shard, a file) or in none. Groups are listed in the order of their first sample; a sample
 * with no group is a group of its own. Immutable.
 */
public final class SampleGroups {
    private final int samples;
    private final int[] groupStarts;   // group g's members are members[groupStarts[g], groupStarts[g + 1])
    private final int[] members;       // sample indices, grouped, ascending within a group

    private SampleGroups(int samples, int[] groupStarts, int[] members) {
        this.samples = samples;
        this.groupStarts = groupStarts;
        this.members = members;
    }

    /** {@code samples} samples, none grouped (every sample its own group). */
    public static SampleGroups ungrouped(int samples) {
        if (samples < 0) {
            throw new IllegalArgumentException("samples: " + samples + " (expected: 0+)");
        }
        int[] starts = new int[samples + 1];
        int[] members = new int[samples];
        for (int i = 0; i < samples; i++) {
            starts[i] = i;
            members[i] = i;
        }
        starts[samples] = samples;
        return new SampleGroups(samples, starts, members);
    }

    /** Sample {@code i} is in group {@code groupIds[i]} (a shard id); a negative id means no group. */
    public static SampleGroups of(int[] groupIds) {
        Objects.requireNonNull(groupIds, "groupIds");
        List<Object> keys = new ArrayList<>(groupIds.length);
        for (int i = 0; i < groupIds.length; i++) {
            keys.add(groupIds[i] < 0 ? null : groupIds[i]);
        }
        return byKey(keys);
    }

    /**
     * Samples with equal keys (by {@code equals}: paths, shard names) share a group; a {@code null} key
     * means no group.
     */
    public static SampleGroups byKey(List<?> keys) {
        Objects.requireNonNull(keys, "keys");
        int n = keys.size();
        Map<Object, Integer> groupOf = new HashMap<>();
        int[] group = new int[n];
        int groups = 0;
        for (int i = 0; i < n; i++) {
            Object key = keys.get(i);
            if (key == null) {
                group[i] = groups++;
            } else {
                Integer g = groupOf.get(key);
                if (g == null) {
                    g = groups++;
                    groupOf.put(key, g);
                }
                group[i] = g;
            }
        }
        int[] starts = new int[groups + 1];
        for (int i = 0; i < n; i++) {
            starts[group[i] + 1]++;
        }
        for (int g = 0; g < groups; g++) {
            starts[g + 1] += starts[g];
        }
        int[] fill = Arrays.copyOf(starts, groups);
        int[] members = new int[n];
        for (int i = 0; i < n; i++) {
            members[fill[group[i]]++] = i;
        }
        return new SampleGroups(n, starts, members);
    }

    /** Samples in the dataset. */
    public int size() { return samples; }

    /** Groups in the dataset. */
    public int groupCount() {
        return groupStarts.length - 1;
    }

    /** Samples in group {@code g}. */
    public int groupSize(int g) {
        return groupStarts[g + 1] - groupStarts[g];
    }

    /** The group sample {@code sampleIndex} belongs to (a linear scan: for tests and reports). */
    public int groupOf(int sampleIndex) {
        Objects.checkIndex(sampleIndex, samples);
        for (int g = 0; g < groupCount(); g++) {
            for (int k = groupStarts[g]; k < groupStarts[g + 1]; k++) {
                if (members[k] == sampleIndex) {
                    return g;
                }
            }
        }
        throw new AssertionError("sample " + sampleIndex + " in no group");
    }

    /** Copies group {@code g}'s sample indices into {@code out} at {@code at}; returns the next free slot. */
    public int copyGroup(int g, int[] out, int at) {
        int length = groupSize(g);
        System.arraycopy(members, groupStarts[g], out, at, length);
        return at + length;
    }

    /** Sample count, group count and a hash of the group sizes in order. */
    public DatasetFingerprint fingerprint() {
        long h = SplitMix.mix(samples, groupCount());
        for (int g = 0; g < groupCount(); g++) {
            h = SplitMix.mix(h, groupSize(g));
        }
        return new DatasetFingerprint(samples, groupCount(), HexFormat.of().toHexDigits(h));
    }
}
