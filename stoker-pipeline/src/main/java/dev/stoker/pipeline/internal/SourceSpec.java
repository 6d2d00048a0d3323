package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.EpochSource;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Where items come from, epoch by epoch: {@link #open} returns the iterator of one epoch, or
 * {@code null} when the stream has ended. {@code epochMarkers} says whether epoch ends are sent down
 * the pipeline (sources of one pass need none).
 */
public record SourceSpec(EpochSource<?> epochs, boolean epochMarkers, String description) {

    public Iterator<?> open(int epoch) {
        Iterable<?> items = epochs.epoch(epoch);
        return items == null ? null : items.iterator();
    }

    public static SourceSpec once(Iterable<?> items) {
        return new SourceSpec(e -> e == 0 ? items : null, false, "iterable");
    }

    public static SourceSpec repeat(Iterable<?> items, int maxEpochs) {
        return new SourceSpec(e -> maxEpochs < 0 || e < maxEpochs ? items : null, true, "iterable, in epochs");
    }

    public static SourceSpec once(Iterator<?> items) {
        return new SourceSpec(e -> e == 0 ? () -> castIterator(items) : null, false, "iterator");
    }

    public static SourceSpec supplier(Supplier<?> supplier) {
        Iterable<Object> endless = () -> Spliterators.iterator(
                new Spliterators.AbstractSpliterator<Object>(Long.MAX_VALUE, Spliterator.ORDERED) {
                    @Override
                    public boolean tryAdvance(Consumer<? super Object> action) {
                        Object next = supplier.get();
                        if (next == null) {
                            return false;
                        }
                        action.accept(next);
                        return true;
                    }
                });
        return new SourceSpec(e -> e == 0 ? endless : null, false, "supplier");
    }

    public static SourceSpec epochs(EpochSource<?> source, int maxEpochs) {
        return new SourceSpec(e -> maxEpochs < 0 || e < maxEpochs ? source.epoch(e) : null, true, "epoch source");
    }

    @SuppressWarnings("unchecked")
    private static Iterator<Object> castIterator(Iterator<?> it) {
        return (Iterator<Object>) it;
    }
}
