package dev.stoker.store.loader;

import dev.stoker.store.ShardDataset;
import dev.stoker.store.prefetch.KnownOrder;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.store.prefetch.PrefetchReader;
import dev.stoker.store.prefetch.Prefetcher;
import dev.stoker.video.ClipSpec;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SampleDraw;
import dev.stoker.video.dataset.SamplerState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Function;

/**
 * The shard side of {@link ShardLoader}'s decode stage: before a decoder reads a sample's clips, their
 * bytes are already in memory, read ahead along the sampler's known order by a {@link Prefetcher} (keyed
 * by draw: a sample padded into the epoch twice is two items) that loads each clip span of the mapped shard
 * under the byte budget; a span counts against the budget from its read until its decoder takes it. With a
 * cold cache each span is evicted just before it is read (by the prefetcher, or by the decoder when
 * reading ahead is off). Reading ahead is advice: a span that fails to read (a damaged record) is left to
 * the decoder's own read, which names the damage.
 */
final class RecordReadAhead implements AutoCloseable {
    private final ShardDataset dataset;
    private final Function<SampleDraw, List<ClipSpec>> clips;
    private final boolean cold;
    private final Prefetcher<SampleDraw, MemorySegment> prefetcher;

    private RecordReadAhead(ShardDataset dataset, Function<SampleDraw, List<ClipSpec>> clips, boolean cold,
                            Prefetcher<SampleDraw, MemorySegment> prefetcher) {
        this.dataset = dataset;
        this.clips = clips;
        this.cold = cold;
        this.prefetcher = prefetcher;
    }

    /**
     * Starts reading ahead along {@code sampler}'s draws from {@code start} to sampler epoch {@code endEpoch}
     * ({@code -1}: endless); {@code clips} gives the clips a draw reads.
     */
    static RecordReadAhead start(ShardDataset dataset, ReadAhead options, EpochSampler sampler, SamplerState start,
                                 int endEpoch, int itemsAhead, Function<SampleDraw, List<ClipSpec>> clips) {
        if (dataset.isRemote()) {
            // Remote shards are fetched by ranges as each clip is read: no mapping to load ahead or evict.
            return new RecordReadAhead(dataset, clips, false, null);
        }
        if (!options.enabled()) {
            return new RecordReadAhead(dataset, clips, options.coldCache(), null);
        }
        RecordReadAhead ahead = new RecordReadAhead(dataset, clips, options.coldCache(), null);
        Prefetcher<SampleDraw, MemorySegment> prefetcher = Prefetcher.start(KnownOrder.draws(sampler, start, endEpoch),
                new PrefetchReader<>() {
                    @Override
                    public long sizeBytes(SampleDraw draw) {
                        return ahead.span(draw).byteSize();
                    }

                    @Override
                    public MemorySegment read(SampleDraw draw) throws IOException {
                        MemorySegment span = ahead.span(draw);
                        if (ahead.cold) {
                            dataset.evict(draw.sampleIndex(), span);
                        }
                        span.load();
                        return span;
                    }

                    @Override
                    public long byteSize(MemorySegment span) {
                        return span.byteSize();
                    }
                }, itemsAhead, options.budgetBytes());
        return new RecordReadAhead(dataset, clips, options.coldCache(), prefetcher);
    }

    private MemorySegment span(SampleDraw draw) {
        return dataset.clipBytes(draw.sampleIndex(), clips.apply(draw));
    }

    /** Called by a decoder before it reads {@code draw}'s clips: waits for their bytes, or evicts them when cold. */
    void beforeRead(SampleDraw draw) {
        if (prefetcher != null) {
            try {
                prefetcher.take(draw);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a read ahead", e);
            } catch (IOException | RuntimeException e) {
                // advice only: the decoder's own read reports a damaged record (or the loader is closing)
            }
        } else if (cold) {
            try {
                dataset.evict(draw.sampleIndex(), span(draw));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot evict the pages of sample " + draw.sampleIndex(), e);
            } catch (RuntimeException e) {
                // a damaged record: the decoder's own read names it
            }
        }
    }

    /** The prefetcher's counters (hit rate, bytes held and peak, mean occupancy), or null when reading ahead is off. */
    PrefetchStats stats() {
        return prefetcher == null ? null : prefetcher.stats();
    }

    @Override
    public void close() {
        if (prefetcher != null) {
            prefetcher.close();
        }
    }
}
