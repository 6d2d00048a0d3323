package dev.stoker.store.ingest;

import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.Sink;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.format.internal.ShardFormat;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.store.shard.internal.ShardLayout;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.internal.FrameFolder;
import dev.stoker.video.VideoException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Ingests a dataset into shards: the pipeline
 * <pre>
 *   sources (sorted dataset order) → read → decode → encode → write
 * </pre>
 * where read loads the file (virtual threads), decode turns it into RGB frames at the stored size and
 * rate, encode makes the format's packets, and the single write stage appends samples to the current
 * shard and closes it once its payload reaches the shard size (so shard boundaries are a function of the
 * sorted dataset, the options and the deterministic encoders).
 *
 * <p>Resumable: finished shards ({@code shard-NNNNNNN.stk}, named by the first source they cover) whose
 * header matches these options and whose sources are unchanged (path, size, mtime) are kept, and only
 * the sources outside them are ingested again, with shards closed where a kept shard begins. The
 * manifest is written last; until then the folder is not a {@link ShardDataset}.
 */
public final class Ingest {
    /** The list of sources that failed, with reasons, written next to the manifest. */
    public static final String REPORT = "ingest-report.txt";

    /** What an ingest did. */
    public record Result(Path dest, int sources, int samples, int failed, int shardsWritten, int shardsReused,
                         long payloadBytes, List<Manifest.FailedSource> failures) {
    }

    /** The ingest pipeline's stages, in order, as its stats and failures name them. */
    private enum Stage implements LoaderStage {
        READ, DECODE, ENCODE, WRITE
    }

    private Ingest() {
    }

    /** {@link #run(Dataset, Path, IngestOptions, int, IngestListener, FailureBudget)} skipping every failed source. */
    public static Result run(Dataset dataset, Path dest, IngestOptions options, int workers, IngestListener listener)
            throws IOException {
        return run(dataset, dest, options, workers, listener, FailureBudget.UNLIMITED);
    }

    /**
     * Ingests {@code dataset} into shards in {@code dest}; a source that cannot be read, decoded or encoded is
     * skipped and listed in the report, until more of them failed than {@code budget} allows (then the ingest
     * stops with a {@code PipelineFailedException}; shards written so far stay and are kept by the next run).
     */
    public static Result run(Dataset dataset, Path dest, IngestOptions options, int workers, IngestListener listener,
                             FailureBudget budget) throws IOException {
        return run(dataset, 0, dataset.size(), dest, options, workers, listener, budget);
    }

    /**
     * Ingests sources {@code from..to-1} of {@code dataset} into {@code dest}: one partition of a distributed ingest.
     * The sources keep their indices in the whole dataset (in the shards' names, their records and the manifest's
     * rows, which seed the loaders' clip choices), so partitions merged give the samples one whole ingest gives; the
     * last shard ends at {@code to}. The manifest lists this range's sources only.
     */
    public static Result run(Dataset dataset, int from, int to, Path dest, IngestOptions options, int workers,
                             IngestListener listener, FailureBudget budget) throws IOException {
        Objects.requireNonNull(listener, "listener");
        if (from < 0 || to < from || to > dataset.size()) {
            throw new IllegalArgumentException("sources " + from + ".." + to + " (expected: within 0.." + dataset.size() + ")");
        }
        Objects.requireNonNull(budget, "budget");
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: 1+)");
        }
        ShardFormat format = ShardFormat.named(options.format());
        Files.createDirectories(dest);
        Files.deleteIfExists(dest.resolve(ShardDataset.MANIFEST));
        deleteTemporaryFiles(dest);
        int sourceCount = dataset.size();
        List<RecordEntry.Source> sources = new ArrayList<>(sourceCount);
        for (int i = 0; i < sourceCount; i++) {
            sources.add(i >= from && i < to ? fingerprint(i, dataset.get(i)) : null); // null: another partition's
        }
        String header = new Manifest.Header(ShardLayout.FORMAT_VERSION, options.format(), options).toJson();
        List<ShardFile.Summary> kept = keepFinishedShards(dest, header, sources, listener);
        boolean[] covered = new boolean[sourceCount];
        java.util.Arrays.fill(covered, 0, from, true);
        java.util.Arrays.fill(covered, to, sourceCount, true);
        Set<Integer> keptStarts = new HashSet<>();
        int reusedSources = 0;
        for (ShardFile.Summary s : kept) {
            keptStarts.add(s.firstSource());
            for (int i = s.firstSource(); i < s.endSource(); i++) {
                covered[i] = true;
                reusedSources++;
            }
        }
        listener.planned(to - from, reusedSources, kept.size());
        List<IngestItem> todo = new ArrayList<>();
        for (int i = 0; i < sourceCount; i++) {
            if (!covered[i]) {
                todo.add(new IngestItem(sources.get(i)));
            }
        }

        List<ShardFile.Summary> written = new ArrayList<>();
        if (!todo.isEmpty()) {
            IngestWriteStage.Shards shards = new IngestWriteStage.Shards(dest, header, options.shardSizeBytes(), keptStarts, to);
            written = runPipeline(dataset, options, format, workers, listener, todo, shards, budget);
        }
        List<ShardFile.Summary> all = new ArrayList<>(kept);
        all.addAll(written);
        all.sort(Comparator.comparingInt(ShardFile.Summary::firstSource));
        Manifest manifest = manifest(dest, options, dataset, to - from, all);
        writeReport(dest, manifest);
        manifest.write(dest.resolve(ShardDataset.MANIFEST));
        return new Result(dest, to - from, manifest.sampleCount(), manifest.failedCount(), written.size(), kept.size(),
                manifest.payloadBytes(), manifest.failed());
    }

    private static List<ShardFile.Summary> runPipeline(Dataset dataset, IngestOptions options, ShardFormat format,
                                                       int workers, IngestListener listener, List<IngestItem> todo,
                                                       IngestWriteStage.Shards shards, FailureBudget budget) {
        SampleDecoder sampleDecoder = new SampleDecoder(options, format.needsEvenSize());
        Queue<ClipDecoder> decoders = new ConcurrentLinkedQueue<>();
        ThreadLocal<ClipDecoder> decoder = ThreadLocal.withInitial(() -> {
            ClipDecoder d = new ClipDecoder();
            decoders.add(d);
            return d;
        });
        // Read, decode and encode note a failure on the item (it is listed in its shard, so that a resumed ingest
        // knows it); the write stage, which sees every item in order, holds the budget.
        IngestWriteStage write = new IngestWriteStage(shards, listener, budget);
        List<ShardFile.Summary> written = new ArrayList<>();
        try (Pipeline<ShardFile.Summary> pipeline = Pipeline.from(todo)
                .map(Stage.READ.stageName(), Ingest::read, s -> s.concurrency(Math.max(2, workers)).virtualThreads().ordered()
                        .failureBudget(FailureBudget.UNLIMITED))
                .map(Stage.DECODE.stageName(), item -> decode(item, dataset, options, sampleDecoder, decoder.get()),
                        s -> s.concurrency(workers).ordered().queueCapacity(1).failureBudget(FailureBudget.UNLIMITED))
                .map(Stage.ENCODE.stageName(), item -> encode(item, format, options),
                        s -> s.concurrency(workers).ordered().queueCapacity(1).failureBudget(FailureBudget.UNLIMITED))
                .map(Stage.WRITE.stageName(), write, s -> s.concurrency(1).ordered().queueCapacity(2).failureBudget(FailureBudget.count(0)))
                .build(Sink.buffer(4))) {
            for (ShardFile.Summary summary : pipeline) {
                written.add(summary);
            }
        } catch (PipelineFailedException e) {
            if (write.budgetExceeded != null) {
                throw write.budgetExceeded;
            }
            throw e;
        } finally {
            write.abandon();
            ClipDecoder d;
            while ((d = decoders.poll()) != null) {
                d.close();
            }
        }
        return written;
    }

    private static IngestItem read(IngestItem item) {
        if (Files.isDirectory(Path.of(item.source.path()))) {
            return item; // a video stored as a folder of images: decode lists it and reads its frames
        }
        try {
            item.bytes = ArchiveMembers.readAllBytes(Path.of(item.source.path())); // a file, or a tar archive's member
            if (item.bytes.length == 0) {
                item.fail(FailureReason.EMPTY_FILE.code(), "the file has 0 bytes");
            }
        } catch (NoSuchFileException e) {
            item.fail(FailureReason.NOT_FOUND.code(), e.getReason() != null ? e.getReason() : "no such file");
        } catch (EOFException e) {
            item.fail(FailureReason.TRUNCATED.code(), e.getMessage());
        } catch (IOException e) {
            item.fail(FailureReason.IO_ERROR.code(), "cannot read: " + e);
        }
        return item;
    }

    /**
     * A source the read stage left unread, a folder of frames, with only its entry's range read: a manifest may cut a
     * 10^5-frame folder into many samples.
     */
    private static Video openFolder(IngestItem item, VideoEntry entry, IngestOptions options) {
        return FrameFolder.list(Path.of(item.source.path())).readSpan(options.folderFramesPerSecond(),
                entry.startSeconds().orElse(0), entry.endSeconds().orElse(Double.POSITIVE_INFINITY));
    }

    private static IngestItem decode(IngestItem item, Dataset dataset, IngestOptions options, SampleDecoder sampleDecoder,
                                     ClipDecoder decoder) {
        if (item.failed()) {
            return item;
        }
        VideoEntry entry = dataset.get(item.source.index());
        try (Video video = item.bytes != null ? Video.open(item.source.path(), item.bytes) : openFolder(item, entry, options)) {
            item.bytes = null;
            item.decoded = sampleDecoder.decode(video, entry.startSeconds(), entry.endSeconds(), decoder);
            item.sourceKeyframes = item.decoded.sourceKeyframes();
        } catch (VideoException e) {
            item.fail(e.reason().code(), e.operation() + " failed: " + e.detail());
        } catch (RuntimeException e) {
            item.fail(FailureReason.INTERNAL.code(), "decode: " + e);
        }
        return item;
    }

    private static IngestItem encode(IngestItem item, ShardFormat format, IngestOptions options) {
        if (item.failed()) {
            return item;
        }
        try {
            item.encoded = format.encode(item.decoded, options);
        } catch (RuntimeException e) {
            item.fail(FailureReason.INTERNAL.code(), "encode: " + e);
        } finally {
            item.close();
        }
        return item;
    }

    static RecordEntry.Source fingerprint(int index, VideoEntry entry) {
        Path path = entry.path().toAbsolutePath().normalize();
        FileStamp stamp = FileStamp.of(path); // missing or unreadable: the read stage reports it
        return new RecordEntry.Source(index, path.toString(), stamp.sizeBytes(), stamp.mtimeMillis(), entry.label(),
                entry.className());
    }

    private static void deleteTemporaryFiles(Path dest) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dest, ".*.tmp")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Finished shards that match the options and the current sources; deletes the others. */
    private static List<ShardFile.Summary> keepFinishedShards(Path dest, String header, List<RecordEntry.Source> sources,
                                                              IngestListener listener) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dest, ShardLayout.SHARD_PREFIX + "*" + ShardLayout.SHARD_SUFFIX)) {
            stream.forEach(files::add);
        }
        files.sort(Comparator.naturalOrder());
        List<ShardFile.Summary> kept = new ArrayList<>();
        int coveredUpTo = 0;
        for (Path file : files) {
            String problem;
            ShardFile.Summary summary = null;
            try (Arena arena = Arena.ofConfined()) {
                ShardFile shard = ShardFile.map(file, arena);
                problem = reusable(shard, header, sources, coveredUpTo);
                if (problem == null) {
                    summary = summarise(shard);
                }
            } catch (ShardException e) {
                problem = e.getMessage();
            }
            if (problem != null) {
                listener.discarded(file.getFileName().toString(), problem);
                Files.deleteIfExists(file);
            } else {
                kept.add(summary);
                coveredUpTo = summary.endSource();
            }
        }
        return kept;
    }

    private static String reusable(ShardFile shard, String header, List<RecordEntry.Source> sources, int coveredUpTo) {
        if (!shard.headerJson().equals(header)) {
            return "written with other options or format (" + shard.headerJson() + ")";
        }
        if (!shard.name().equals(ShardLayout.shardName(shard.firstSource()))) {
            return "its name does not match its first source " + shard.firstSource();
        }
        if (shard.firstSource() < coveredUpTo || shard.endSource() > sources.size() || shard.endSource() <= shard.firstSource()) {
            return "covers sources " + shard.firstSource() + ".." + shard.endSource() + ", overlapping or outside 0.." + sources.size();
        }
        if (!shard.indexIntact()) {
            return "index checksum mismatch";
        }
        if (shard.entryCount() != shard.endSource() - shard.firstSource()) {
            return "holds " + shard.entryCount() + " records for " + (shard.endSource() - shard.firstSource()) + " sources";
        }
        for (int r = 0; r < shard.entryCount(); r++) {
            RecordEntry entry = shard.entry(r);
            RecordEntry.Source now = sources.get(shard.firstSource() + r);
            if (now == null) {
                return "covers source " + (shard.firstSource() + r) + ", outside the sources this ingest covers";
            }
            if (!entry.source().equals(now)) {
                return "source " + now.index() + " changed since (" + now.path() + ")";
            }
        }
        return null;
    }

    static ShardFile.Summary summarise(ShardFile shard) {
        int samples = 0;
        int failed = 0;
        long payload = 0;
        for (int r = 0; r < shard.entryCount(); r++) {
            RecordEntry entry = shard.entry(r);
            if (entry.failed()) {
                failed++;
            } else {
                samples++;
                payload += entry.payloadBytes();
            }
        }
        return new ShardFile.Summary(shard.name(), shard.firstSource(), shard.endSource(), shard.entryCount(), samples,
                failed, shard.fileBytes(), payload, shard.indexCrc32c());
    }

    private static Manifest manifest(Path dest, IngestOptions options, Dataset dataset, int sourceCount,
                                     List<ShardFile.Summary> shards) throws IOException {
        List<Manifest.SampleRow> rows = new ArrayList<>();
        List<Manifest.FailedSource> failed = new ArrayList<>();
        long payload = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int s = 0; s < shards.size(); s++) {
                ShardFile shard = ShardFile.map(dest.resolve(shards.get(s).file()), arena);
                for (int r = 0; r < shard.entryCount(); r++) {
                    RecordEntry e = shard.entry(r);
                    if (e.failed()) {
                        failed.add(new Manifest.FailedSource(e.sourceIndex(), e.sourcePath(), e.failureReason(),
                                e.failureMessage(), shard.name(), r));
                    } else {
                        rows.add(new Manifest.SampleRow(s, r, e.sourceIndex(), e.label(), e.frameCount(),
                                e.framesPerSecond(), e.durationSeconds(), e.width(), e.height(), e.payloadBytes(),
                                e.sourcePath(), dataset.entries().get(e.sourceIndex()).text().orElse(null)));
                        payload += e.payloadBytes();
                    }
                }
            }
        }
        return new Manifest(ShardLayout.FORMAT_VERSION, options.format(), options, dataset.classNames(), sourceCount,
                rows.size(), failed.size(), payload, shards, rows, failed);
    }

    private static void writeReport(Path dest, Manifest manifest) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append("stoker ingest: ").append(manifest.sourceCount()).append(" sources, ").append(manifest.sampleCount())
                .append(" stored, ").append(manifest.failedCount()).append(" failed\n");
        for (Manifest.FailedSource f : manifest.failed()) {
            text.append(f.source()).append(": ").append(f.reason()).append(": ").append(f.message().replace('\n', ' '))
                    .append('\n');
        }
        Path report = dest.resolve(REPORT);
        Path temp = dest.resolve("." + REPORT + ".tmp");
        Files.writeString(temp, text, StandardCharsets.UTF_8);
        Files.move(temp, report, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
