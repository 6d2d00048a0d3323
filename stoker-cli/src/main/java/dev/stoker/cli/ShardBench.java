package dev.stoker.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.loader.LoaderOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.ExitCode;

/**
 * {@code stoker bench DEST} when DEST is a folder written by {@code stoker ingest}: the same measurement
 * over a {@link ShardLoader} (fetch → decode → batch → collate from mapped shards), the same summary and
 * JSON. No single-thread reference: there is no container decode to compare with.
 */
final class ShardBench {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ShardBench() {
    }

    static int run(PrintWriter out, Path root, LoaderOptions options, long batches, Path json, Path trace)
            throws IOException {
        int cores = Runtime.getRuntime().availableProcessors();
        TraceRecorder recorder = trace == null ? null : TraceRecorder.create();
        MemoryProbe memoryAtStart = MemoryProbe.read();
        AtomicLong samples = new AtomicLong();
        long batchesDone = 0;
        long startNanos = System.nanoTime();
        long firstBatchNanos = -1;
        long steadyStartNanos = -1;
        long steadyStartSamples = 0;
        MemoryProbe memoryAfterWarmup = null;
        PipelineStats stats;
        BenchResult result;
        try (ShardDataset shards = ShardDataset.open(root);
             ShardLoader loader = ShardLoader.open(shards, options, recorder)) {
            out.printf(Locale.ROOT, "reading %d samples from %s shards in %s%n", shards.size(), shards.options().format(), root);
            try (LiveStatsView view = LiveStatsView.start(loader.pipeline(), samples::get, 0, out,
                    LiveStatsView.stdoutIsTerminal(), Duration.ofSeconds(1))) {
                Iterator<ClipBatch> it = loader.iterator();
                while (batchesDone < batches && it.hasNext()) {
                    try (ClipBatch b = it.next()) {
                        samples.addAndGet(b.clipCount());
                    }
                    batchesDone++;
                    long now = System.nanoTime();
                    if (firstBatchNanos < 0) {
                        firstBatchNanos = now - startNanos;
                    }
                    if (steadyStartNanos < 0 && batchesDone >= Math.max(2, batches / 10)) {
                        steadyStartNanos = now;
                        steadyStartSamples = samples.get();
                        memoryAfterWarmup = MemoryProbe.read();
                    }
                }
            }
            stats = loader.pipeline().stats();
            long endNanos = System.nanoTime();
            MemoryProbe memoryAtEnd = MemoryProbe.read();
            double seconds = (endNanos - startNanos) / 1e9;
            double steadySeconds = steadyStartNanos > 0 ? (endNanos - steadyStartNanos) / 1e9 : seconds;
            long steadySamples = steadyStartNanos > 0 ? samples.get() - steadyStartSamples : samples.get();
            double samplesPerSecond = steadySeconds > 0 && steadySamples > 0 ? steadySamples / steadySeconds
                    : samples.get() / seconds;
            long clips = loader.decodedClips();
            result = new BenchResult(root.toString(), shards.size(), cores, batchesDone, samples.get(), seconds,
                    samplesPerSecond, samplesPerSecond * options.frames(), firstBatchNanos / 1e9,
                    clips == 0 ? 0 : (double) loader.decodedFrames() / clips, null, Double.NaN, options,
                    loader.pipeline().config(), stats,
                    loader.pipeline().failures().stream().map(BenchResult.FailureRecord::of).toList(),
                    stats.failuresByReason(), new BenchResult.Memory(memoryAtStart, memoryAfterWarmup, memoryAtEnd,
                    memoryAtEnd), null);
        }
        out.print(result.summary());
        if (json != null) {
            Files.writeString(json, JSON.writeValueAsString(result));
            out.println("wrote results to " + json);
        }
        if (recorder != null) {
            recorder.write(trace);
            out.printf(Locale.ROOT, "wrote trace to %s (%d events; open it in ui.perfetto.dev)%n", trace, recorder.retainedEvents());
        }
        out.flush();
        return batchesDone == 0 ? 1 : ExitCode.OK;
    }
}
