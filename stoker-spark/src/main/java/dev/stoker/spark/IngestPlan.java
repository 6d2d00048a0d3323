package dev.stoker.spark;

import java.io.Serializable;
import java.util.Locale;

/**
 * What a distributed ingest does, fixed before any task runs and the same for every attempt: the sources in the
 * dataset's sorted order cut into partitions of {@code partitionSources} (the last one shorter), partition
 * {@code p} covering sources {@code p * partitionSources} up to the next partition's first. A partition's output is
 * named by its number, never by the attempt that wrote it, so a retried task or a rerun finds a committed partition
 * and skips it. Sent to every task, hence {@link Serializable}; the ingest options travel as their JSON.
 *
 * @param source           the dataset (a folder or CSV every executor reads, or an {@code s3://} / {@code https://} one)
 * @param dest             where the shards go: a folder every executor writes (a shared file system), or {@code s3://}
 * @param s3Endpoint       the S3 endpoint for S3 compatibles, or null for AWS
 * @param optionsJson      the {@code IngestOptions} as JSON
 * @param sourceCount      sources in the dataset when the plan was made; a task that sees another count fails
 * @param partitionSources sources per partition
 * @param workers          decode and encode threads in each task
 */
record IngestPlan(String source, String dest, String s3Endpoint, String optionsJson, int sourceCount,
                         int partitionSources, int workers) implements Serializable {

    public IngestPlan {
        if (partitionSources < 1) {
            throw new IllegalArgumentException("partitionSources: " + partitionSources + " (expected: 1+)");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: 1+)");
        }
    }

    public int partitions() {
        return (sourceCount + partitionSources - 1) / partitionSources;
    }

    public int from(int partition) {
        return partition * partitionSources;
    }

    public int to(int partition) {
        return Math.min(sourceCount, from(partition) + partitionSources);
    }

    /** The folder (or prefix) partition {@code p} is committed under, relative to the destination. */
    static String folder(int partition) {
        return String.format(Locale.ROOT, "parts/part-%05d/", partition);
    }
}
