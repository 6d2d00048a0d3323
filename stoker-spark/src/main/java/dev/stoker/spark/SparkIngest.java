package dev.stoker.spark;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.LocalBlobStore;
import dev.stoker.store.remote.RemoteVideos;
import dev.stoker.store.shard.Manifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * {@code stoker ingest} as a Spark job. The driver makes the {@link IngestPlan}, runs one task per partition not yet
 * committed ({@link PartitionTask}; Spark retries a failed one, which finds its partition committed or writes it
 * anew), then merges the partition manifests into the dataset's manifest, written last: a reader sees the whole
 * dataset or none. A rerun after completion finds every partition committed and the manifest there, and runs nothing.
 */
final class SparkIngest {
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** What a run did: partitions ingested now, found committed, and the merged dataset's counts. */
    public record Result(int partitions, int partitionsRun, int partitionsSkipped, int sources, int samples, int failed,
                         List<Manifest.FailedSource> failures) {
    }

    private SparkIngest() {
    }

    /** Plans {@code source} into partitions of {@code partitionSources} (opening the dataset once, on the driver). */
    public static IngestPlan plan(String source, String dest, URI s3Endpoint, IngestOptions options, int partitionSources,
                                  int workers) throws IOException {
        String endpoint = s3Endpoint == null ? null : s3Endpoint.toString();
        IngestPlan draft = new IngestPlan(source, dest, endpoint, JSON.writeValueAsString(options), 0, partitionSources, workers);
        int sources = openDataset(draft).size();
        return new IngestPlan(source, dest, endpoint, draft.optionsJson(), sources, partitionSources, workers);
    }

    public static Result run(JavaSparkContext spark, IngestPlan plan) throws IOException {
        return run(spark, plan, snapshot -> { });
    }

    /**
     * {@link #run(JavaSparkContext, IngestPlan)}, handing {@code progress} where the ingest stands each time it moves
     * (from Spark's listener thread): sources done and failed, payload written, the last snapshot once it is done.
     */
    public static Result run(JavaSparkContext spark, IngestPlan plan, Consumer<SparkProgress.Snapshot> progress)
            throws IOException {
        List<Integer> todo = new ArrayList<>();
        try (BlobStore dest = openStore(plan.dest(), plan.s3Endpoint())) {
            for (int p = 0; p < plan.partitions(); p++) {
                if (!PartitionTask.committed(dest, p)) {
                    todo.add(p);
                }
            }
            if (todo.isEmpty() && exists(dest, ShardDataset.MANIFEST)) {
                Manifest done = Manifest.parse(dest.readAll(ShardDataset.MANIFEST));
                return new Result(plan.partitions(), 0, plan.partitions(), done.sourceCount(), done.sampleCount(),
                        done.failedCount(), done.failed());
            }
            dest.delete(ShardDataset.MANIFEST); // what follows changes the dataset: no reader may take the old list
        }
        int alreadyDone = plan.sourceCount();
        for (int p : todo) {
            alreadyDone -= plan.to(p) - plan.from(p);
        }
        SparkProgress listener = new SparkProgress(spark.sc(), plan.sourceCount(), alreadyDone, progress);
        SparkProgress.Counters counters = listener.counters();
        List<PartitionOutcome> outcomes;
        spark.sc().addSparkListener(listener);
        try {
            outcomes = todo.isEmpty() ? List.of() : spark.parallelize(todo, todo.size())
                    .map(p -> PartitionTask.run(plan, p, TaskContext.get().taskAttemptId(),
                            TaskContext.get().attemptNumber(), counters))
                    .collect();
        } finally {
            spark.sc().removeSparkListener(listener);
        }
        progress.accept(listener.snapshot());
        try (BlobStore dest = openStore(plan.dest(), plan.s3Endpoint())) {
            List<Manifest> parts = new ArrayList<>(plan.partitions());
            for (int p = 0; p < plan.partitions(); p++) {
                parts.add(Manifest.parse(dest.readAll(PartitionTask.committedManifest(dest, p))));
            }
            Manifest merged = ManifestMerge.merge(plan, parts);
            Path temp = Files.createTempFile("stoker-shards", ".json");
            try {
                Files.write(temp, merged.toBytes());
                dest.put(ShardDataset.MANIFEST, temp);
            } finally {
                Files.deleteIfExists(temp);
            }
            if (dest instanceof LocalBlobStore local) {
                PartitionTask.deleteTree(local.root().resolve("_temporary")); // attempts that lost or were killed
            }
            int ran = (int) outcomes.stream().filter(PartitionOutcome::ran).count();
            return new Result(plan.partitions(), ran, plan.partitions() - ran, merged.sourceCount(), merged.sampleCount(),
                    merged.failedCount(), merged.failed());
        }
    }

    static BlobStore openStore(String location, String s3Endpoint) throws IOException {
        if (!BlobStore.isRemote(location)) {
            Files.createDirectories(Path.of(location));
        }
        return BlobStore.open(location, s3Endpoint == null ? null : URI.create(s3Endpoint));
    }

    /**
     * The plan's dataset, as every task sees it: a local (or shared) folder or CSV, or remote videos copied into this
     * machine's temp folder once (per location).
     */
    static Dataset openDataset(IngestPlan plan) throws IOException {
        Path source;
        if (BlobStore.isRemote(plan.source())) {
            Path copy = Path.of(System.getProperty("java.io.tmpdir"), "stoker-spark-sources",
                    Integer.toHexString(plan.source().hashCode()));
            source = RemoteVideos.copy(plan.source(), plan.s3Endpoint() == null ? null : URI.create(plan.s3Endpoint()), copy)
                    .source();
        } else {
            source = Path.of(plan.source());
        }
        Dataset dataset = Dataset.open(source);
        if (plan.sourceCount() > 0 && dataset.size() != plan.sourceCount()) {
            throw new IOException(plan.source() + ": " + dataset.size() + " sources (expected: " + plan.sourceCount()
                    + ", as when the ingest was planned: the dataset changed)");
        }
        return dataset;
    }

    static IngestOptions options(String json) {
        try {
            return JSON.readValue(json, IngestOptions.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable ingest options: " + json, e);
        }
    }

    private static boolean exists(BlobStore store, String key) throws IOException {
        try {
            store.size(key);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }
}
