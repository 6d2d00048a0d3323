package dev.stoker.gpu;

import java.util.Iterator;
import java.util.function.Function;

/**
 * {@code source}'s elements, each passed through {@code mapping} as it is taken: how the device loaders turn
 * what their pipelines deliver into device batches and note the resume state on the way.
 */
final class MappingIterator<A, B> implements Iterator<B> {
    private final Iterator<A> source;
    private final Function<? super A, ? extends B> mapping;

    MappingIterator(Iterator<A> source, Function<? super A, ? extends B> mapping) {
        this.source = source;
        this.mapping = mapping;
    }

    @Override
    public boolean hasNext() { return source.hasNext(); }

    @Override
    public B next() {
        return mapping.apply(source.next());
    }
}
