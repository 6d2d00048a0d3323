package dev.stoker.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.bench.internal.BenchResult;
import dev.stoker.bench.internal.Bytes;
import dev.stoker.bench.internal.FormatsReport;
import dev.stoker.bench.internal.MemoryTimeline;
import dev.stoker.bench.internal.SteadyStateRun;
import dev.stoker.bench.internal.Yardsticks;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.prefetch.PrefetchStats;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stoker bench DEST} when DEST is a folder written by {@code stoker ingest}: the same measurement
 * over a {@link ShardLoader} (fetch → decode → batch → collate from mapped shards), the same summary and
 * JSON, plus the read-ahead's hit rate and occupancy ({@code prefetch}) and the data readiness after warm-up
 * (with {@code --consumer-ms}: does a slower consumer find its batches ready?). No single-thread reference:
 * there is no container decode to compare with.
 */
final class ShardBench {
    private ShardBench() {
    }

    static int run(PrintWriter out, CommandSpec spec, BenchDevice device, DatasetLocation dataset, LoaderOptions options,
                   long batches, Path json, Path trace, ReadAhead readAhead, BenchStorageOptions storage)
            throws IOException, InterruptedException {
        String root = dataset.name();
        int cores = Runtime.getRuntime().availableProcessors();
        TraceRecorder recorder = trace == null ? null : TraceRecorder.create();
        MemoryTimeline memory = new MemoryTimeline(batches);
        SteadyStateRun run = SteadyStateRun.settings(batches).memory(memory).consumerStep(storage.consumerMillis).start();
        PipelineStats stats;
        BenchResult result;
        PrefetchStats prefetch;
        dev.stoker.store.remote.BlobStore.Stats remote;
        dev.stoker.store.remote.BlockCache.Stats cache;
        // On a GPU (--device cuda:N), the GPU loader copies the shard loader's batches there.
        try (ClipLoader<? extends LoadedBatch> loader = device.openLoader(spec, dataset, options,
                Opening.defaults().tracedBy(recorder).with(readAhead))) {
            ShardLoader shardLoader = (ShardLoader) BenchDevice.hostLoader(loader);   // a shard location: the shard loader
            ShardDataset shards = shardLoader.dataset();
            out.printf(Locale.ROOT, "reading %d samples from %s shards in %s%s%n", shards.size(), shards.options().format(),
                    root, readAhead.coldCache() ? " (cold page cache)" : "");
            try (LiveStatsView view = LiveStatsView.start(loader.pipeline(), run::samples, 0, out,
                    LiveStatsView.stdoutIsTerminal(), Duration.ofSeconds(1))) {
                run.drive(loader, null);
            }
            stats = loader.pipeline().stats();
            prefetch = shardLoader.readAheadStats();
            remote = shards.isRemote() ? shards.remoteStats() : null;
            cache = shards.blockCache() == null ? null : shards.blockCache().stats();
            result = BenchResult.of(root, shards.size(), cores, run.finish(), loader.decodedFrames(), loader.decodedClips(),
                    options, loader.pipeline().config(), stats, loader.pipeline().failures(), memory.finish(), Yardsticks.NONE,
                    null, null);
        }
        double readiness = stats.sink().dataReadinessSince(run.sinkAfterWarmup());
        out.print(result.summary());
        if (remote != null) {
            long clips = Math.max(1, result.samples());
            out.printf(Locale.ROOT, "remote           %d requests (%.2f a clip, %d retried), %s received (%s a clip)%n",
                    remote.requests(), (double) remote.requests() / clips, remote.retries(),
                    Bytes.human(remote.bytesRead()), Bytes.human(remote.bytesRead() / clips));
        }
        if (cache != null) {
            out.printf(Locale.ROOT, "cache            hit rate %.1f%% (%d of %d blocks), %d fetched ahead, %d corrupt, %d evicted, %s of %s on disk%n",
                    100 * cache.hitRate(), cache.hits(), cache.hits() + cache.misses(), cache.fetchedAhead(), cache.corrupt(),
                    cache.evicted(), Bytes.human(cache.storedBytes()), Bytes.human(cache.budgetBytes()));
        }
        if (prefetch != null) {
            out.printf(Locale.ROOT, "prefetch         hit rate %.1f%% (%d of %d waited), occupancy %.1f%% mean, peak %s of %s, %s read%n",
                    100 * prefetch.hitRate(), prefetch.waits(), prefetch.requests(), 100 * prefetch.meanOccupancy(),
                    Bytes.human(prefetch.peakHeldBytes()), Bytes.human(prefetch.budgetBytes()),
                    Bytes.human(prefetch.bytesRead()));
        } else {
            out.println("prefetch         off");
        }
        out.printf(Locale.ROOT, "data readiness   %10.3f   (after warm-up%s)%n", readiness,
                storage.consumerMillis > 0 ? String.format(Locale.ROOT, "; consumer step %.1f ms", storage.consumerMillis) : "");
        if (json != null) {
            ObjectNode node = OutputFiles.JSON.valueToTree(result);
            node.put("cold", readAhead.coldCache());
            node.put("consumer_ms", storage.consumerMillis);
            node.put("data_readiness_after_warmup", readiness);
            node.set("prefetch", prefetch == null ? null : FormatsReport.prefetchJson(prefetch));
            if (remote != null) {
                ObjectNode r = node.putObject("remote");
                r.put("requests", remote.requests());
                r.put("retries", remote.retries());
                r.put("bytes_read", remote.bytesRead());
            }
            if (cache != null) {
                ObjectNode c = node.putObject("cache");
                c.put("hit_rate", cache.hitRate());
                c.put("hits", cache.hits());
                c.put("misses", cache.misses());
                c.put("fetched_ahead", cache.fetchedAhead());
                c.put("bytes_fetched", cache.bytesFetched());
                c.put("corrupt", cache.corrupt());
                c.put("evicted", cache.evicted());
                c.put("uncached", cache.uncached());
                c.put("stored_bytes", cache.storedBytes());
                c.put("budget_bytes", cache.budgetBytes());
            }
            OutputFiles.json(out, json, node);
        }
        OutputFiles.trace(out, trace, recorder);
        out.flush();
        return result.batches() == 0 ? 1 : ExitCode.OK;
    }
}
