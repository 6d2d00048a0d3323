package dev.stoker.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.bench.internal.FormatsBench;
import dev.stoker.bench.internal.FormatsReport.Row;
import dev.stoker.bench.internal.FormatsReport;
import dev.stoker.bench.internal.RawReadBench;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.IngestOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code stoker bench formats SRC}: which storage format pays on this machine. Ingests a sample of SRC into
 * each shard format (video, jpeg, raw) once (kept in the cache), then loads the same clips from the original
 * files and from each format, with a warm page cache and a cold one (every read from the device), and prints
 * one table: bytes on disk per clip, samples/s warm and cold, CPU seconds per clip.
 */
@Command(name = "formats",
        header = "Ingest a sample into every shard format and compare bytes, samples/s and CPU, warm and cold.",
        mixinStandardHelpOptions = true,
        description = {
                "Ingests a sample of SRC (--sample videos) into each shard format (video, jpeg, raw) at --size and",
                "--fps, then loads the same clips (--frames, --stride, --crop) from the original files and from each",
                "format, warm and cold (each file's pages evicted before it is read), and prints one table: bytes on",
                "disk per clip, samples/s warm and cold, CPU seconds per clip (process CPU time / clips). The shards",
                "are kept in $STOKER_CACHE/bench-formats (or --dir), so a rerun only measures.",
                "",
                "Clips from the original files are resampled to --fps/--stride frames per second, so that every row",
                "loads the same span of frames.",
                "",
                "Then raw's read bandwidth on one thread next to a memcpy of the same bytes, in the same run: clips read",
                "with checksums checked on first read (the default) and on every read, and the raw loader's batches.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker bench formats                          demo: 20 videos, 128px, 15 fps",
                "  stoker bench formats ~/kinetics/train --sample 50 --batches 100 \\",
                "      --json formats.json",
                "  stoker bench formats DATA --size 160 --fps 10 --frames 8 --stride 1 --crop 128",
        })
final class BenchFormatsCommand extends Subcommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SRC") Path source;
    @Option(names = "--sample", defaultValue = "20") int sample;
    @Option(names = "--size", defaultValue = "128") int size;
    @Option(names = "--fps", defaultValue = "15") double fps;
    @Option(names = "--frames", defaultValue = "16") int frames;
    @Option(names = "--stride", defaultValue = "2") int stride;
    @Option(names = "--crop", defaultValue = "112") int crop;
    @Option(names = "--batch", defaultValue = "8") int batch;
    @Option(names = "--batches", defaultValue = "40") long batches;
    @Option(names = "--prefetch-bytes", defaultValue = "64M", paramLabel = "BYTES") String prefetchBytes;
    @Option(names = "--failure-budget", paramLabel = "RATE[@MIN_ITEMS]") String failureBudget;
    @Option(names = "--workers") Integer workers;
    @Option(names = "--dir", paramLabel = "FOLDER") Path dir;
    @Option(names = "--json", paramLabel = "FILE") Path json;

    /** {@code --failure-budget}, or {@code otherwise} without it. */
    private dev.stoker.pipeline.FailureBudget budget(dev.stoker.pipeline.FailureBudget otherwise) {
        return failureBudget == null ? otherwise : LoaderOptionsMixin.parseFailureBudget(spec, failureBudget);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = out();
        budget(null);   // a bad --failure-budget is a usage error before any work
        if (sample < 1 || batches < 1 || frames < 1 || stride < 1 || crop < 1 || size < crop || batch < 1 || fps < 0) {
            throw usageError("--sample " + sample + ", --batches " + batches + ", --frames "
                    + frames + ", --stride " + stride + ", --crop " + crop + ", --size " + size + ", --batch " + batch
                    + ", --fps " + fps + " (expected: 1+ each, --size >= --crop, --fps 0+)");
        }
        long budget;
        try {
            budget = BenchStorageOptions.parseBudget(prefetchBytes);
        } catch (IllegalArgumentException e) {
            throw usageError("--prefetch-bytes: " + e.getMessage());
        }
        Path root = source != null ? source : LoaderOptionsMixin.demoDataset(out);
        Dataset all = LoaderOptionsMixin.openDataset(spec, root);
        Dataset sampled = FormatsBench.sample(all, sample);
        Path work = dir != null ? dir : LoaderOptionsMixin.cacheDir().resolve("bench-formats").resolve(key(root, sampled));
        int cores = Runtime.getRuntime().availableProcessors();
        out.printf(Locale.ROOT, "%d of %d videos of %s; shards at short side %d, %s, in %s%n", sampled.size(), all.size(),
                root, size, fps > 0 ? fmt(fps) + " fps" : "source fps", work);

        LoaderOptions shardOptions = LoaderOptions.builder().clip(frames, stride)
                .size(crop, crop, Resize.Mode.SHORT_SIDE_CENTER_CROP, size)
                .batch(batch, false, BatchLayout.NTHWC).order(0, true, -1)
                .failureBudget(budget(LoaderOptions.defaults().failureBudget())).build();
        LoaderOptions fileOptions = fps > 0 ? shardOptions.toBuilder().resampledClip(frames, fps / stride).build() : shardOptions;

        IngestOptions ingest = IngestOptions.defaults().withShortSide(size);
        if (fps > 0) {
            ingest = ingest.withFramesPerSecond(fps);
        }
        List<Row> rows = new FormatsBench(out, batches, budget).measure(sampled, fileOptions, work, ingest,
                workers != null ? workers : cores, budget(dev.stoker.pipeline.FailureBudget.UNLIMITED), shardOptions);
        double memcpy = FormatsReport.memcpyBytesPerSecond();
        RawReadBench.Result rawRead = RawReadBench.measure(work.resolve(IngestOptions.Format.RAW.toString()), shardOptions);
        double rawLoaderBytesPerSecond = rows.getLast().warm().samplesPerSecond() * rawRead.clipBytes();

        out.println();
        out.print(FormatsReport.table(rows));
        out.println();
        out.print(FormatsReport.rawReadTable(rawRead, rawLoaderBytesPerSecond, memcpy, cores));
        out.printf(Locale.ROOT, "%d cores; %d batches of %d clips (%d frames, stride %d, %dx%d) per measurement; steady state after warm-up%n",
                cores, batches, batch, frames, stride, crop, crop);
        if (json != null) {
            write(json, rows, root, sampled.size(), cores, memcpy, rawRead, rawLoaderBytesPerSecond);
            out.println("wrote results to " + json);
        }
        out.flush();
        return ExitCode.OK;
    }

    private String key(Path root, Dataset sampled) {
        String text = root.toAbsolutePath().normalize() + "|" + sampled.size() + "|" + size + "|" + fps;
        return "s" + sampled.size() + "-" + size + "px-" + fmt(fps) + "fps-"
                + HexFormat.of().toHexDigits(text.hashCode());
    }

    private void write(Path file, List<Row> rows, Path root, int videos, int cores, double memcpy, RawReadBench.Result rawRead,
                       double rawLoaderBytesPerSecond) {
        ObjectNode node = OutputFiles.JSON.createObjectNode();
        node.put("source", root.toString());
        node.put("videos", videos);
        node.put("cores", cores);
        ObjectNode settings = node.putObject("settings");
        settings.put("short_side", size);
        settings.put("fps", fps);
        settings.put("frames", frames);
        settings.put("stride", stride);
        settings.put("crop", crop);
        settings.put("batch", batch);
        settings.put("batches", batches);
        FormatsReport.addJson(node, rows, memcpy, rawRead, rawLoaderBytesPerSecond);
        OutputFiles.writeJson("--json", file, node);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
