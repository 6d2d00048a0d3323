package dev.stoker.pipeline.internal;

import java.util.List;
import java.util.function.Predicate;

/** Keeps the items the predicate accepts. */
public final class FilterStage implements StageFunction {
    private final Predicate<Object> predicate;

    @SuppressWarnings("unchecked")
    public FilterStage(Predicate<?> predicate) {
        this.predicate = (Predicate<Object>) predicate;
    }

    @Override
    public StageKind kind() { return StageKind.FILTER; }

    @Override
    public void apply(Envelope in, List<Envelope> out, IdSource ids) {
        if (predicate.test(in.value)) {
            out.add(in);
        }
    }
}
