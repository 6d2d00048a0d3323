package dev.stoker.store.ingest;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.Sink;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.ShardException;
import dev.stoker.store.format.internal.ShardFormat;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.RecordEntry;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.store.shard.internal.ShardLayout;
import dev.stoker.store.shard.internal.ShardWriter;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.VideoEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.function.Function;

/** Appends samples to the current shard; closes it at the size limit, before a kept shard, or at the end. */
final class IngestWriteStage implements Function<IngestItem, ShardFile.Summary> {
    private final Path dest;
    private final String header;
    private final long shardSizeBytes;
    private final Set<Integer> keptStarts;
    private final int sourceCount;
    private final IngestListener listener;
    private final FailureBudget budget;
    private final List<String> firstFailures = new ArrayList<>();
    private long seen;
    private long failed;
    private ShardWriter current;
    volatile PipelineFailedException budgetExceeded;

    IngestWriteStage(Path dest, String header, long shardSizeBytes, Set<Integer> keptStarts, int sourceCount,
               IngestListener listener, FailureBudget budget) {
        this.budget = budget;
        this.dest = dest;
        this.header = header;
        this.shardSizeBytes = shardSizeBytes;
        this.keptStarts = keptStarts;
        this.sourceCount = sourceCount;
        this.listener = listener;
    }

    private void countFailure(IngestItem item) {
        failed++;
        if (firstFailures.size() < 3) {
            String path = item.source.path();
            String message = String.valueOf(item.failureMessage);
            firstFailures.add((message.contains(path) ? message : path + ": " + message) + " (" + item.failureReason + ")");
        }
        if (budget.isExceeded(failed, seen)) {
            budgetExceeded = new PipelineFailedException("failure budget exceeded in ingest: " + failed + " of " + seen
                    + " sources failed (budget: " + budget + "). First failures: " + String.join("; ", firstFailures),
                    List.of("ingest"), null);
            throw budgetExceeded;
        }
    }

    @Override
    public ShardFile.Summary apply(IngestItem item) {
        try (item) {
            int index = item.source.index();
            if (current == null) {
                current = new ShardWriter(dest, index, header);
            }
            seen++;
            if (item.failed()) {
                current.addFailure(item.source, item.failureReason, item.failureMessage);
                listener.sourceDone(index, true, 0);
                countFailure(item);
            } else {
                current.add(item.source, item.encoded, item.sourceKeyframes);
                listener.sourceDone(index, false, item.encoded.payload().length);
                item.encoded = null;
            }
            int next = index + 1;
            if (current.payloadBytes() >= shardSizeBytes || next == sourceCount || keptStarts.contains(next)) {
                ShardFile.Summary summary = current.finish(next);
                current = null;
                listener.shardWritten(summary);
                return summary;
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("writing shard in " + dest + ": " + e.getMessage(), e);
        }
    }

    /** Deletes the temporary file of a shard left unfinished (the run stopped early). */
    void abandon() {
        if (current != null) {
            try {
                current.close();
            } catch (IOException e) {
                // the next run deletes leftover temporary files anyway
            }
            current = null;
        }
    }
}
