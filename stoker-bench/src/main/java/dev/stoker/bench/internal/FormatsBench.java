package dev.stoker.bench.internal;

import dev.stoker.bench.internal.FormatsReport.Measurement;
import dev.stoker.bench.internal.FormatsReport.Row;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.prefetch.internal.EvictBeforeRead;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code stoker bench formats}' measurements: a sample of videos ingested into each shard format once (kept in
 * a folder, so a rerun only measures), then the same clips loaded from the original files and from each format,
 * with a warm page cache and a cold one (each file's pages evicted just before its read). Each load is one
 * {@link SteadyStateRun}: samples/s and the process's CPU time per clip after the warm-up.
 *
 * @param out           where each run's line goes as it ends
 * @param batches       batches per run (at least 1)
 * @param prefetchBytes the shard read-ahead's budget (0: off)
 */
public record FormatsBench(PrintWriter out, long batches, long prefetchBytes) {
    /** The shard formats compared with the original files, in the table's order. */
    public static final List<IngestOptions.Format> FORMATS = List.of(IngestOptions.Format.values());

    /** {@code n} entries of {@code all}, evenly spaced over its sorted order (so every class is likely in). */
    public static Dataset sample(Dataset all, int n) {
        if (n >= all.size()) {
            return all;
        }
        List<VideoEntry> picked = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            picked.add(all.get((int) ((long) i * all.size() / n)));
        }
        return new Dataset(picked, all.classNames());
    }

    /**
     * The table's rows: {@code videos} loaded with {@code fileOptions}, then each of {@link #FORMATS}, ingested into
     * {@code work/<format>} with {@code ingest} (unless already there) by {@code workers} threads within
     * {@code ingestBudget}, loaded with {@code shardOptions}.
     */
    public List<Row> measure(Dataset videos, LoaderOptions fileOptions, Path work, IngestOptions ingest, int workers,
                             FailureBudget ingestBudget, LoaderOptions shardOptions) throws IOException {
        List<Row> rows = new ArrayList<>();
        rows.add(measureFiles(videos, fileOptions));
        for (IngestOptions.Format format : FORMATS) {
            Path dest = work.resolve(format.toString());
            if (!ShardDataset.isShardDataset(dest)) {
                out.printf(Locale.ROOT, "ingesting %d videos as %s shards...%n", videos.size(), format);
                out.flush();
            }
            Ingest.run(videos, dest, ingest.withFormat(format), workers, IngestListener.NONE, ingestBudget);
            rows.add(measureShards(format.toString(), dest, shardOptions));
        }
        return rows;
    }

    private Row measureFiles(Dataset data, LoaderOptions options) throws IOException {
        java.util.Set<Path> files = new java.util.LinkedHashSet<>();
        for (Path video : data.entries().stream().map(VideoEntry::path).distinct().toList()) {
            if (Files.isDirectory(video)) {
                // A video stored as a folder of frames: its files are what lies on disk and what the page cache holds.
                try (Stream<Path> frames = Files.list(video)) {
                    frames.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
            } else {
                // A member of a tar archive (WebDataset shards) lies in its archive, which is what is on disk.
                files.add(ArchiveMembers.find(video).map(ArchiveMembers.Member::archive).orElse(video));
            }
        }
        long disk = 0;
        for (Path f : files) {
            disk += Files.size(f);
        }
        warm(files);
        Measurement warm = run("files", "warm", () -> VideoLoader.open(data, options));
        LoaderOptions cold = options.toBuilder().fetchHook(EvictBeforeRead.class).build(); // each file evicted just before its read
        Measurement coldRun = run("files", "cold", () -> VideoLoader.open(data, cold));
        return new Row("files", disk, data.size(), warm, coldRun);
    }

    private Row measureShards(String format, Path dest, LoaderOptions options) throws IOException {
        List<Path> shardFiles;
        try (Stream<Path> list = Files.list(dest)) {
            shardFiles = list.filter(p -> p.getFileName().toString().endsWith(".stk")).sorted().toList();
        }
        long disk = 0;
        for (Path f : shardFiles) {
            disk += Files.size(f);
        }
        try (ShardDataset shards = ShardDataset.open(dest)) {
            ReadAhead readAhead = new ReadAhead(prefetchBytes, 4, false);
            warm(shardFiles);
            Measurement warm = run(format, "warm", () -> ShardLoader.open(shards, options, Opening.defaults().with(readAhead)));
            Measurement cold = run(format, "cold",
                    () -> ShardLoader.open(shards, options, Opening.defaults().with(readAhead.withColdCache(true))));
            return new Row(format, disk, shards.size(), warm, cold);
        }
    }

    /** One run: samples/s and CPU time per clip after a warm-up of a tenth (2+ batches, ending before the last). */
    private Measurement run(String format, String cache, Supplier<ClipLoader<ClipBatch>> open) {
        SteadyStateRun run = SteadyStateRun.settings(batches)
                .warmup(Math.min(batches - 1, SteadyStateRun.defaultWarmup(batches))).start();
        PrefetchStats prefetch;
        try (ClipLoader<ClipBatch> loader = open.get()) {
            run.drive(loader, null);
            prefetch = loader instanceof ShardLoader shards ? shards.readAheadStats() : null;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(format + " " + cache + ": " + e.getMessage(), e);
        }
        SteadyStateRun.Figures f = run.finish();
        long measured = f.steadySamples();
        Measurement m = new Measurement(measured / f.steadySeconds(), measured == 0 ? Double.NaN : f.steadyCpuSeconds() / measured,
                measured, f.steadySeconds(), prefetch);
        out.printf(Locale.ROOT, "  %-6s %s  %8.1f samples/s  %.4f CPU s/clip%s%n", format, cache, m.samplesPerSecond(),
                m.cpuSecondsPerClip(), prefetch == null ? ""
                        : String.format(Locale.ROOT, "  (prefetch hit rate %.1f%%, occupancy %.1f%%)",
                        100 * prefetch.hitRate(), 100 * prefetch.meanOccupancy()));
        out.flush();
        return m;
    }

    /** Reads every file once, so the warm measurement starts with them in the page cache. */
    private static void warm(java.util.Collection<Path> files) throws IOException {
        byte[] buffer = new byte[1 << 20];
        for (Path f : files) {
            try (InputStream in = Files.newInputStream(f)) {
                while (in.read(buffer) >= 0) {
                    // read through
                }
            }
        }
    }
}
