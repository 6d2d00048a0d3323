package dev.stoker.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.bench.internal.Bytes;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.internal.ShardUpload;
import dev.stoker.store.shard.ShardFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stoker ingest SRC DEST}: decodes a video dataset once into training shards. */
@Command(name = "ingest",
        header = "Transcode a dataset into training shards (video, jpeg or raw).",
        mixinStandardHelpOptions = true,
        description = {
                "Decodes every video of SRC (a folder ROOT/<class>/<video>, a CSV manifest or WebDataset .tar",
                "archives) once, at the stored size and rate, into shards in DEST that load without container",
                "parsing:",
                "  video  H.264 packets (libopenh264) with a short GOP: smallest; a clip decodes",
                "         from the keyframe at or before its start",
                "  jpeg   one JPEG per frame (GulpIO layout): a clip decodes only its frames",
                "  raw    uint8 RGB frames: largest; a clip at the stored size is a memory copy",
                "Every record carries a CRC32C. Rerunning after an interruption keeps finished shards and",
                "writes the rest; the result equals an uninterrupted run. Sources that fail are listed in",
                "DEST/ingest-report.txt and never stop the ingest. Then: stoker bench DEST.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker ingest data/demo shards/demo --size 112 --format video --gop 16",
                "  stoker ingest train.csv shards/train --format jpeg --size 160x120 --fps 15",
                "  stoker ingest data/demo shards/raw --format raw --size 128 --shard-size 1G",
                "  stoker inspect shards/demo && stoker verify shards/demo",
        })
final class IngestCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "SRC") Path source;
    @Parameters(index = "1", paramLabel = "DEST") Path dest;
    @Option(names = "--s3-endpoint", paramLabel = "URL") URI s3Endpoint;
    @Option(names = "--format", defaultValue = "video") String format;
    @Option(names = "--size", paramLabel = "S|WxH") String size;
    @Option(names = "--fps") double fps;
    @Option(names = "--gop", defaultValue = "16") int gop;
    @Option(names = "--shard-size", defaultValue = "256M", paramLabel = "BYTES") String shardSize;
    @Option(names = "--jpeg-quality", defaultValue = "3") int jpegQuality;
    @Option(names = "--frame-folder-fps", paramLabel = "FPS") double frameFolderFps;
    @Option(names = "--workers") Integer workers;
    @Option(names = "--failure-budget", paramLabel = "RATE[@MIN_ITEMS]") String failureBudget;
    @Option(names = "--spark", paramLabel = "MASTER") String sparkMaster;
    @Option(names = "--partition-sources", defaultValue = "64", paramLabel = "N") int partitionSources;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = out();
        IngestOptions options = options();
        if (sparkMaster != null) {
            return spark(out, options);
        }
        int threads = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        if (threads < 1) {
            throw usageError("--workers: " + threads + " (expected: 1+)");
        }
        FailureBudget budget = failureBudget == null ? FailureBudget.UNLIMITED
                : LoaderOptionsMixin.parseFailureBudget(spec, failureBudget);
        String remoteSource = RemoteLocations.of(source);
        Dataset dataset = LoaderOptionsMixin.openDataset(spec, "SRC",
                remoteSource == null ? source : RemoteLocations.copyVideos(out, remoteSource, s3Endpoint));
        String remoteDest = RemoteLocations.of(dest);
        // Shards for object storage are written locally first (a resumable ingest like any), then published.
        Path folder = remoteDest == null ? dest : LoaderOptionsMixin.cacheDir().resolve("ingest").resolve(RemoteLocations.hash(remoteDest));
        Progress progress = new Progress(out, LiveStatsView.stdoutIsTerminal());
        Ingest.Result result;
        try (progress) {
            result = Ingest.run(dataset, folder, options, threads, progress, budget);
        }
        if (remoteDest != null) {
            ShardUpload.Result upload;
            try (BlobStore store = BlobStore.open(remoteDest, s3Endpoint)) {
                upload = ShardUpload.publish(folder, store);
            }
            out.printf(Locale.ROOT, "uploaded to %s: %d shards (%s), %d already there, manifest last%n", remoteDest,
                    upload.shardsUploaded(), Bytes.human(upload.bytesUploaded()), upload.shardsKept());
        }
        out.printf(Locale.ROOT, "ingested %d of %d sources into %s: %s, %d shards (%d written, %d kept), %s payload%n",
                result.samples(), result.sources(), result.dest(), options.format(),
                result.shardsWritten() + result.shardsReused(), result.shardsWritten(), result.shardsReused(),
                Bytes.human(result.payloadBytes()));
        if (result.failed() > 0) {
            out.printf(Locale.ROOT, "%d sources failed (listed in %s):%n", result.failed(), folder.resolve(Ingest.REPORT));
            result.failures().stream().limit(10).forEach(f -> out.printf("  %s: %s%n", f.source(), f.reason()));
        }
        out.flush();
        return ExitCode.OK;
    }

    /** The same ingest as a Spark job; the in-process flags it does not take are refused rather than ignored. */
    private int spark(PrintWriter out, IngestOptions options) throws IOException, InterruptedException {
        if (failureBudget != null) {
            throw usageError("--failure-budget with --spark (expected: none; a Spark"
                    + " ingest lists every failed source and never stops for them)");
        }
        if (partitionSources < 1) {
            throw usageError("--partition-sources: " + partitionSources + " (expected: 1+)");
        }
        List<String> args = new ArrayList<>(List.of(
                RemoteLocations.of(source) != null ? RemoteLocations.of(source) : source.toAbsolutePath().toString(),
                RemoteLocations.of(dest) != null ? RemoteLocations.of(dest) : dest.toAbsolutePath().toString(),
                "--master", sparkMaster, "--partition-sources", Integer.toString(partitionSources),
                "--workers", Integer.toString(workers != null ? workers : 1),
                "--options", new ObjectMapper().writeValueAsString(options)));
        if (s3Endpoint != null) {
            args.addAll(List.of("--s3-endpoint", s3Endpoint.toString()));
        }
        return SparkRunner.run(out, args) == 0 ? ExitCode.OK : ExitCode.SOFTWARE;
    }

    private IngestOptions options() {
        try {
            IngestOptions o = IngestOptions.defaults().withFormat(IngestOptions.Format.of(format)).withGop(gop)
                    .withShardSize(IngestOptions.parseBytes(shardSize)).withJpegQuality(jpegQuality)
                    .withFramesPerSecond(fps).withFrameFolderFps(frameFolderFps);
            if (size != null) {
                SizeArgument s = SizeArgument.parse(size);
                o = s.single() ? o.withShortSide(s.width()) : o.withSize(s.width(), s.height());
            }
            return o;
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
    }

    /** Ingest's events drawn as a {@link ProgressBar}: sources done and failed, payload written. */
    static final class Progress implements IngestListener, AutoCloseable {
        private final AtomicLong bytes = new AtomicLong();
        private final ProgressBar bar;

        Progress(PrintWriter out, boolean terminal) {
            this.bar = new ProgressBar(out, terminal, "ingest", "sources",
                    () -> Bytes.human(bytes.get()) + " written");
        }

        @Override
        public void planned(int sources, int reusedSources, int reusedShards) {
            bar.total(Math.max(0, sources - reusedSources));
            if (reusedShards > 0) {
                bar.message(String.format(Locale.ROOT, "resuming: %d finished shards cover %d of %d sources", reusedShards,
                        reusedSources, sources));
            }
        }

        @Override
        public void discarded(String shard, String reason) {
            bar.message("redoing " + shard + ": " + reason);
        }

        @Override
        public void sourceDone(int sourceIndex, boolean sourceFailed, long payloadBytes) {
            bytes.addAndGet(payloadBytes);
            bar.done(sourceFailed);
        }

        @Override
        public void shardWritten(ShardFile.Summary shard) {
        }

        @Override
        public void close() {
            bar.close();
        }
    }
}
