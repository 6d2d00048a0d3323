package dev.stoker.store.prefetch.internal;

import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.SamplerState;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** A sampler's upcoming sequence as the iterator a {@link Prefetcher} reads ahead along. */
public final class KnownOrder {
    private KnownOrder() {
    }

    /**
     * The draws {@code sampler} makes from {@code from} on, epoch after epoch, up to (not including)
     * sampler epoch {@code endEpoch} ({@code -1}: endless). Lazy: one epoch's order is computed at a time.
     */
    public static Iterator<SampleDraw> draws(EpochSampler sampler, SamplerState from, int endEpoch) {
        var source = sampler.source(from, endEpoch);
        return new Iterator<>() {
            private int k;
            private List<? extends SampleDraw> epoch = list(source.epoch(0));
            private int i;

            private static List<? extends SampleDraw> list(Iterable<? extends SampleDraw> draws) {
                if (draws == null || draws instanceof List<? extends SampleDraw>) {
                    return (List<? extends SampleDraw>) draws;
                }
                List<SampleDraw> copy = new java.util.ArrayList<>();
                draws.forEach(copy::add);
                return copy;
            }

            @Override
            public boolean hasNext() {
                while (epoch != null && i == epoch.size()) {
                    epoch = list(source.epoch(++k));
                    i = 0;
                }
                return epoch != null;
            }

            @Override
            public SampleDraw next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return epoch.get(i++);
            }
        };
    }

    /** The sample indices of {@link #draws}: keys for a {@link Prefetcher} over a dataset's samples. */
    public static Iterator<Integer> sampleIndices(EpochSampler sampler, SamplerState from, int endEpoch) {
        Iterator<SampleDraw> draws = draws(sampler, from, endEpoch);
        return new Iterator<>() {
            @Override
            public boolean hasNext() { return draws.hasNext(); }

            @Override
            public Integer next() {
                return draws.next().sampleIndex();
            }
        };
    }
}
