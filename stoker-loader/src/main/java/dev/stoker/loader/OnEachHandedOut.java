package dev.stoker.loader;

import java.util.Iterator;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An iterator that gives each element to an action as it hands the element out: what a loader's epoch does with
 * a batch at the moment the consumer receives it (the resume state moves, the clip starts are counted), never
 * earlier, while it is still being made or prefetched.
 */
final class OnEachHandedOut<T> implements Iterator<T> {
    private final Iterator<T> items;
    private final Consumer<? super T> action;

    OnEachHandedOut(Iterator<T> items, Consumer<? super T> action) {
        this.items = Objects.requireNonNull(items, "items");
        this.action = Objects.requireNonNull(action, "action");
    }

    @Override
    public boolean hasNext() { return items.hasNext(); }

    @Override
    public T next() {
        T item = items.next();
        action.accept(item);
        return item;
    }
}
