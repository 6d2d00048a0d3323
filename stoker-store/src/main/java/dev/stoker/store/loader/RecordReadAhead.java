package dev.stoker.store.loader;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.store.prefetch.internal.KnownOrder;
import dev.stoker.store.prefetch.internal.PrefetchReader;
import dev.stoker.store.prefetch.internal.Prefetcher;
import dev.stoker.store.remote.BlockCache;
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
 *
 * <p>Remote shards read through a {@link BlockCache} are read ahead the same way, into the cache: the blocks of each
 * upcoming draw's clips are downloaded and pinned (never evicted) until its decoder has read them, under the cache's
 * budget less one batch's working set (room the decoders' own reads always find). Without a cache, remote shards are
 * not read ahead: each clip's ranges are downloaded by its decoder.
 */
final class RecordReadAhead implements AutoCloseable {
    private static final Runnable NOTHING = () -> { };

    private final ShardDataset dataset;
    private final Function<SampleDraw, List<ClipSpec>> clips;
    private final boolean cold;
    private final Prefetcher<SampleDraw, MemorySegment> prefetcher;
    private final Prefetcher<SampleDraw, BlockCache.Pin> remote;

    private RecordReadAhead(ShardDataset dataset, Function<SampleDraw, List<ClipSpec>> clips, boolean cold,
                            Prefetcher<SampleDraw, MemorySegment> prefetcher, Prefetcher<SampleDraw, BlockCache.Pin> remote) {
        this.dataset = dataset;
        this.clips = clips;
        this.cold = cold;
        this.prefetcher = prefetcher;
        this.remote = remote;
    }

    /**
     * Starts reading ahead along {@code sampler}'s draws from {@code start} to sampler epoch {@code endEpoch}
     * ({@code -1}: endless); {@code clips} gives the clips a draw reads.
     */
    static RecordReadAhead start(ShardDataset dataset, ReadAhead options, EpochSampler sampler, SamplerState start,
                                 int endEpoch, int itemsAhead, long batchWorkingSetBytes,
                                 Function<SampleDraw, List<ClipSpec>> clips) {
        if (dataset.isRemote()) {
            BlockCache cache = dataset.blockCache();
            long budget = cache == null ? 0 : cache.settings().budgetBytes() - batchWorkingSetBytes;
            if (!options.enabled() || budget < 1) {
                // No cache: each clip's ranges are downloaded by its decoder; no mapping to load ahead or evict.
                return new RecordReadAhead(dataset, clips, false, null, null);
            }
            return new RecordReadAhead(dataset, clips, false, null, Prefetcher.start(KnownOrder.draws(sampler, start, endEpoch),
                    new PrefetchReader<>() {
                        @Override
                        public long sizeBytes(SampleDraw draw) {
                            return dataset.clipBlockBytes(draw.sampleIndex(), clips.apply(draw));
                        }

                        @Override
                        public BlockCache.Pin read(SampleDraw draw) {
                            return dataset.pinClipBlocks(draw.sampleIndex(), clips.apply(draw));
                        }

                        @Override
                        public long byteSize(BlockCache.Pin pin) {
                            return pin.bytes();
                        }

                        @Override
                        public void release(BlockCache.Pin pin) {
                            pin.close();
                        }
                    }, itemsAhead, budget));
        }
        if (!options.enabled()) {
            return new RecordReadAhead(dataset, clips, options.coldCache(), null, null);
        }
        RecordReadAhead ahead = new RecordReadAhead(dataset, clips, options.coldCache(), null, null);
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
        return new RecordReadAhead(dataset, clips, options.coldCache(), prefetcher, null);
    }

    private MemorySegment span(SampleDraw draw) {
        return dataset.clipBytes(draw.sampleIndex(), clips.apply(draw));
    }

    /**
     * Called by a decoder before it reads {@code draw}'s clips: waits for their bytes, or evicts them when cold.
     * Returns what to run once the read is done (unpins a remote draw's cache blocks).
     */
    Runnable beforeRead(SampleDraw draw) {
        if (remote != null) {
            try {
                BlockCache.Pin pin = remote.take(draw);
                return pin == null ? NOTHING : pin::close;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a read ahead", e);
            } catch (IOException | RuntimeException e) {
                return NOTHING; // advice only: the decoder's own read names a damaged record or a failed download
            }
        }
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
        return NOTHING;
    }

    /** The prefetcher's counters (hit rate, bytes held and peak, mean occupancy), or null when reading ahead is off. */
    PrefetchStats stats() {
        return prefetcher != null ? prefetcher.stats() : remote != null ? remote.stats() : null;
    }

    @Override
    public void close() {
        if (prefetcher != null) {
            prefetcher.close();
        }
        if (remote != null) {
            remote.close();
        }
    }
}
