package dev.stoker.cli;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.video.dataset.Dataset;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stoker ingest SRC DEST}: decodes a video dataset once into training shards. */
@Command(name = "ingest",
        header = "Transcode a dataset into training shards (video, jpeg or raw).",
        mixinStandardHelpOptions = true,
        description = {
                "Decodes every video of SRC (a folder ROOT/<class>/<video> or a CSV manifest) once, at the",
                "stored size and rate, into shards in DEST that load without container parsing:",
                "  video  H.264 packets (libopenh264) with a short GOP: smallest; a clip decodes from the",
                "         keyframe at or before its start",
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
final class IngestCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SRC", description = "Dataset folder or CSV manifest.")
    Path source;

    @Parameters(index = "1", paramLabel = "DEST", description = "Folder for the shards (created; resumed if present).")
    Path dest;

    @Option(names = "--format", defaultValue = "video", description = "video, jpeg or raw (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--size", paramLabel = "S|WxH",
            description = "S: short side S, aspect kept; WxH: exactly that (default: the source size). Rounded to even for video and jpeg.")
    String size;

    @Option(names = "--fps", description = "Resample to this frame rate (default: keep every source frame and its timestamp).")
    double fps;

    @Option(names = "--gop", defaultValue = "16", description = "Keyframe interval of the video format, in frames (default: ${DEFAULT-VALUE}).")
    int gop;

    @Option(names = "--shard-size", defaultValue = "256M", paramLabel = "BYTES",
            description = "Close a shard once its payload reaches this; k, M, G suffixes (default: ${DEFAULT-VALUE}).")
    String shardSize;

    @Option(names = "--jpeg-quality", defaultValue = "3", description = "JPEG qscale, 2 (best) to 31 (default: ${DEFAULT-VALUE}).")
    int jpegQuality;

    @Option(names = "--workers", description = "Decode and encode workers (default: the number of cores).")
    Integer workers;

    @Option(names = "--failure-budget", paramLabel = "RATE[@MIN_ITEMS]",
            description = "Stop once more than RATE of the sources failed, judged after MIN_ITEMS (default: 1, never stop:"
                    + " failed sources are listed in the report); 0 stops at the first failure.")
    String failureBudget;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        IngestOptions options = options();
        int threads = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        if (threads < 1) {
            throw new ParameterException(spec.commandLine(), "--workers: " + threads + " (expected: 1+)");
        }
        FailureBudget budget = failureBudget == null ? FailureBudget.UNLIMITED
                : LoaderOptionsMixin.parseFailureBudget(spec, failureBudget);
        Dataset dataset = LoaderOptionsMixin.openDataset(spec, source);
        Progress progress = new Progress(out, LiveStatsView.stdoutIsTerminal());
        Ingest.Result result;
        try (progress) {
            result = Ingest.run(dataset, dest, options, threads, progress, budget);
        }
        out.printf(Locale.ROOT, "ingested %d of %d sources into %s: %s, %d shards (%d written, %d kept), %s payload%n",
                result.samples(), result.sources(), result.dest(), options.format(),
                result.shardsWritten() + result.shardsReused(), result.shardsWritten(), result.shardsReused(),
                InspectCommand.bytes(result.payloadBytes()));
        if (result.failed() > 0) {
            out.printf(Locale.ROOT, "%d sources failed (listed in %s):%n", result.failed(), dest.resolve(Ingest.REPORT));
            result.failures().stream().limit(10).forEach(f -> out.printf("  %s: %s%n", f.source(), f.reason()));
        }
        out.flush();
        return ExitCode.OK;
    }

    private IngestOptions options() {
        try {
            IngestOptions o = IngestOptions.defaults().withFormat(format).withGop(gop)
                    .withShardSize(IngestOptions.parseBytes(shardSize)).withJpegQuality(jpegQuality)
                    .withFramesPerSecond(fps);
            if (size != null) {
                String[] parts = size.toLowerCase(Locale.ROOT).split("x");
                if (parts.length == 1) {
                    o = o.withShortSide(Integer.parseInt(parts[0]));
                } else if (parts.length == 2) {
                    o = o.withSize(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
                } else {
                    throw new IllegalArgumentException("--size: " + size + " (expected: S or WxH, e.g. 112 or 160x120)");
                }
            }
            return o;
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "--size: " + size + " (expected: S or WxH, e.g. 112 or 160x120)");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** A progress bar with rate and ETA on a terminal; a plain line every few seconds otherwise. */
    static final class Progress implements IngestListener, AutoCloseable {
        private final PrintWriter out;
        private final boolean terminal;
        private final long startNanos = System.nanoTime();
        private final AtomicInteger done = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final AtomicLong bytes = new AtomicLong();
        private volatile int total;
        private volatile int reused;
        private final Thread printer;
        private volatile boolean closed;

        Progress(PrintWriter out, boolean terminal) {
            this.out = out;
            this.terminal = terminal;
            this.printer = Thread.ofPlatform().daemon().name("stoker-ingest-progress").start(this::print);
        }

        @Override
        public void planned(int sources, int reusedSources, int reusedShards) {
            total = sources;
            reused = reusedSources;
            if (reusedShards > 0) {
                synchronized (out) {
                    out.printf(Locale.ROOT, "resuming: %d finished shards cover %d of %d sources%n", reusedShards,
                            reusedSources, sources);
                    out.flush();
                }
            }
        }

        @Override
        public void discarded(String shard, String reason) {
            synchronized (out) {
                out.printf("redoing %s: %s%n", shard, reason);
                out.flush();
            }
        }

        @Override
        public void sourceDone(int sourceIndex, boolean sourceFailed, long payloadBytes) {
            done.incrementAndGet();
            if (sourceFailed) {
                failed.incrementAndGet();
            }
            bytes.addAndGet(payloadBytes);
        }

        @Override
        public void shardWritten(ShardFile.Summary shard) {
        }

        private void print() {
            long period = terminal ? 500 : 5_000;
            while (!closed) {
                try {
                    Thread.sleep(period);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) {
                    line(false);
                }
            }
        }

        private void line(boolean last) {
            int todo = Math.max(0, total - reused);
            int n = done.get();
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            double rate = seconds > 0 ? n / seconds : 0;
            String eta = rate > 0 && n < todo ? String.format(Locale.ROOT, "ETA %s", duration((todo - n) / rate)) : "";
            String text = String.format(Locale.ROOT, "%d/%d sources  %.1f/s  %s written  %d failed  %s", n, todo, rate,
                    InspectCommand.bytes(bytes.get()), failed.get(), eta);
            synchronized (out) {
                if (terminal) {
                    int width = 30;
                    int filled = todo == 0 ? width : (int) Math.min(width, (long) width * n / todo);
                    out.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + text + "   " + (last ? "\n" : ""));
                } else {
                    out.println("ingest: " + text);
                }
                out.flush();
            }
        }

        private static String duration(double seconds) {
            long s = Math.round(seconds);
            return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60)
                    : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }

        @Override
        public void close() {
            closed = true;
            printer.interrupt();
            try {
                printer.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (terminal || done.get() > 0) {
                line(true);
            }
        }
    }
}
