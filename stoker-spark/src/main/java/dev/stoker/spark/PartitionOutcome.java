package dev.stoker.spark;

import java.io.Serializable;

/**
 * What one partition task did: ingested its sources and committed them ({@code ran}), or found the partition
 * committed already (by an earlier run, or by another attempt that won) and did nothing more.
 */
record PartitionOutcome(int partition, boolean ran, int sources, int samples, int failed, int shardsWritten)
        implements Serializable {

    static PartitionOutcome skipped(int partition) {
        return new PartitionOutcome(partition, false, 0, 0, 0, 0);
    }
}
