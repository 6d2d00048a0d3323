package dev.stoker.spark;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.LocalBlobStore;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.ShardFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One partition of an {@link IngestPlan}, run by a Spark task: the existing ingest over the partition's sources,
 * then the commit. On a file system the attempt writes a folder of its own under {@code _temporary/} and renames it
 * to {@code parts/part-NNNNN/} (a rename fails onto a folder that is there: one attempt wins; the partition's
 * manifest is inside, written last). On object storage the attempt ingests on local disk, uploads its shards under
 * {@code parts/part-NNNNN/<attempt>/}, then puts the partition manifest {@code parts/part-NNNNN/_DONE} with
 * {@code If-None-Match: *} (one attempt wins; a loser's shards are deleted). Nothing is read before its commit.
 * A bad video is a failure in the manifest's list, never a failed task.
 */
final class PartitionTask {
    /** Fault injection for tests: the first attempt at this partition fails after its first source. */
    static final String KILL_ONCE_PROPERTY = "stoker.spark.killPartitionOnce";
    static final String DONE = "_DONE";

    private PartitionTask() {
    }

    /** The key of partition {@code p}'s committed manifest under the destination. */
    static String committedManifest(BlobStore dest, int partition) {
        return IngestPlan.folder(partition) + (dest instanceof LocalBlobStore ? ShardDataset.MANIFEST : DONE);
    }

    static boolean committed(BlobStore dest, int partition) throws IOException {
        try {
            dest.size(committedManifest(dest, partition));
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    static PartitionOutcome run(IngestPlan plan, int partition, long attempt, int attemptNumber,
                                SparkProgress.Counters counters) throws IOException {
        try (BlobStore dest = SparkIngest.openStore(plan.dest(), plan.s3Endpoint())) {
            if (committed(dest, partition)) {
                return PartitionOutcome.skipped(partition);
            }
            Dataset dataset = SparkIngest.openDataset(plan);
            IngestOptions options = SparkIngest.options(plan.optionsJson());
            IngestListener listener = counters.listener(faultInjection(partition, attemptNumber));
            if (dest instanceof LocalBlobStore local) {
                return commitByRename(plan, partition, attempt, dataset, options, listener, local.root());
            }
            return commitByDoneObject(plan, partition, attempt, dataset, options, listener, dest);
        }
    }

    private static PartitionOutcome commitByRename(IngestPlan plan, int partition, long attempt, Dataset dataset,
                                                   IngestOptions options, IngestListener listener, Path root) throws IOException {
        Path work = root.resolve("_temporary").resolve("part-" + partition + "-attempt-" + attempt);
        deleteTree(work);
        Ingest.Result result = Ingest.run(dataset, plan.from(partition), plan.to(partition), work, options, plan.workers(),
                listener, FailureBudget.UNLIMITED);
        Path committed = root.resolve(IngestPlan.folder(partition));
        Files.createDirectories(committed.getParent());
        try {
            Files.move(work, committed, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // rename(2) onto a folder that is there fails (ENOTEMPTY): another attempt committed first and its
            // output stands. Any other failure is this attempt's, for Spark to retry.
            if (!Files.isRegularFile(committed.resolve(ShardDataset.MANIFEST))) {
                throw e;
            }
            deleteTree(work);
            return PartitionOutcome.skipped(partition);
        }
        return outcome(partition, result);
    }

    private static PartitionOutcome commitByDoneObject(IngestPlan plan, int partition, long attempt, Dataset dataset,
                                                       IngestOptions options, IngestListener listener, BlobStore dest)
            throws IOException {
        Path work = Files.createTempDirectory("stoker-part-" + partition + "-");
        try {
            Ingest.Result result = Ingest.run(dataset, plan.from(partition), plan.to(partition), work, options,
                    plan.workers(), listener, FailureBudget.UNLIMITED);
            Manifest manifest = Manifest.read(work.resolve(ShardDataset.MANIFEST));
            String prefix = "attempt-" + attempt + "/";
            List<ShardFile.Summary> shards = new ArrayList<>();
            for (ShardFile.Summary s : manifest.shards()) {
                dest.put(IngestPlan.folder(partition) + prefix + s.file(), work.resolve(s.file()));
                shards.add(ManifestMerge.renamed(s, prefix + s.file()));
            }
            byte[] done = ManifestMerge.withShards(manifest, shards).toBytes();
            if (!dest.putIfAbsent(IngestPlan.folder(partition) + DONE, done)) {
                for (ShardFile.Summary s : shards) {
                    dest.delete(IngestPlan.folder(partition) + s.file());
                }
                return PartitionOutcome.skipped(partition);
            }
            return outcome(partition, result);
        } finally {
            deleteTree(work);
        }
    }

    private static PartitionOutcome outcome(int partition, Ingest.Result result) {
        return new PartitionOutcome(partition, true, result.sources(), result.samples(), result.failed(), result.shardsWritten());
    }

    private static IngestListener faultInjection(int partition, int attemptNumber) {
        String kill = System.getProperty(KILL_ONCE_PROPERTY);
        if (kill == null || attemptNumber > 0 || Integer.parseInt(kill) != partition) {
            return IngestListener.NONE;
        }
        return new IngestListener() {
            @Override
            public void sourceDone(int sourceIndex, boolean sourceFailed, long payloadBytes) {
                throw new IllegalStateException("killed partition " + partition + " after source " + sourceIndex
                        + " (" + KILL_ONCE_PROPERTY + ")");
            }
        };
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
