package dev.stoker.store.ingest;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.FailureBudgetExceededException;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.store.shard.internal.ShardWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Appends samples to the current shard; closes it at the size limit, before a kept shard, or at the end. */
final class IngestWriteStage implements Function<IngestItem, ShardFile.Summary> {
    private final Shards shards;
    private final IngestListener listener;
    private final FailureBudget budget;
    private final List<String> firstFailures = new ArrayList<>();
    private long seen;
    private long failed;
    private ShardWriter current;
    volatile FailureBudgetExceededException budgetExceeded;

    /**
     * The shards to write: files in {@code dest} that start with {@code header}, for the sources up to
     * {@code endSource}; those that start at {@code keptStarts} are there already.
     */
    record Shards(Path dest, String header, long shardSizeBytes, Set<Integer> keptStarts, int endSource) {
        /** Whether the shard being written ends before source {@code next}, with {@code payloadBytes} in it. */
        boolean endsBefore(int next, long payloadBytes) {
            return payloadBytes >= shardSizeBytes || next == endSource || keptStarts.contains(next);
        }
    }

    IngestWriteStage(Shards shards, IngestListener listener, FailureBudget budget) {
        this.shards = shards;
        this.listener = listener;
        this.budget = budget;
    }

    private void countFailure(IngestItem item) {
        failed++;
        if (firstFailures.size() < 3) {
            firstFailures.add(item.source.path() + ": " + item.failureMessage + " (" + item.failureReason + ")");
        }
        if (budget.isExceeded(failed, seen)) {
            budgetExceeded = new FailureBudgetExceededException("failure budget exceeded in ingest: " + failed + " of "
                    + seen + " sources failed (budget: " + budget + "). First failures: " + String.join("; ", firstFailures),
                    new FailureBudgetExceededException.Exceeded("ingest", failed, seen, budget), List.of("ingest"), List.of(),
                    null);
            throw budgetExceeded;
        }
    }

    @Override
    public ShardFile.Summary apply(IngestItem item) {
        try (item) {
            int index = item.source.index();
            if (current == null) {
                current = new ShardWriter(shards.dest(), index, shards.header());
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
            if (shards.endsBefore(next, current.payloadBytes())) {
                ShardFile.Summary summary = current.finish(next);
                current = null;
                listener.shardWritten(summary);
                return summary;
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("writing shard in " + shards.dest() + ": " + e.getMessage(), e);
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
