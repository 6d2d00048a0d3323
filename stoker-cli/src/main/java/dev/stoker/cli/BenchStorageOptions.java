package dev.stoker.cli;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.prefetch.internal.EvictBeforeRead;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench}'s storage options: a cold page cache ({@code --cold}), the shard read-ahead's budget
 * ({@code --prefetch-bytes}, {@code --prefetch-batches}) and a synthetic consumer slower than the loader
 * ({@code --consumer-ms}). The block cache of remote shards is every loader command's ({@link LoaderOptionsMixin}).
 */
final class BenchStorageOptions {
    @Option(names = "--cold") boolean cold;
    @Option(names = "--prefetch-bytes", defaultValue = "64M", paramLabel = "BYTES") String prefetchBytes;
    @Option(names = "--prefetch-batches", defaultValue = "4") int prefetchBatches;
    @Option(names = "--consumer-ms", defaultValue = "0", paramLabel = "MS") double consumerMillis;

    /** The shard read-ahead these flags describe; bad values are usage errors. */
    ReadAhead readAhead(CommandSpec spec) {
        long budget;
        try {
            budget = parseBudget(prefetchBytes);
            return new ReadAhead(budget, prefetchBatches, cold);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--prefetch-bytes/--prefetch-batches: " + e.getMessage());
        }
    }

    /** A byte count with optional k, M or G; {@code 0} turns reading ahead off. */
    static long parseBudget(String text) {
        return text.strip().equals("0") ? 0 : IngestOptions.parseBytes(text);
    }

    /**
     * With {@code --cold}: {@code options} whose fetch stage evicts each video file's pages just before it reads
     * the file ({@link EvictBeforeRead}), so every read, in every epoch, comes from the device; else {@code options}.
     */
    LoaderOptions withColdFetch(LoaderOptions options) {
        return cold ? options.toBuilder().fetchHook(EvictBeforeRead.class).build() : options;
    }
}
