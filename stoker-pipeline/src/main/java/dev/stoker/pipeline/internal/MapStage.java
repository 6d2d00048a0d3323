package dev.stoker.pipeline.internal;

import java.util.List;
import java.util.function.Function;

/** One in, one out; a {@code null} result drops the item. The envelope is reused. */
public final class MapStage implements StageFunction {
    private final Function<Object, Object> fn;

    @SuppressWarnings("unchecked")
    public MapStage(Function<?, ?> fn) {
        this.fn = (Function<Object, Object>) fn;
    }

    @Override
    public StageKind kind() { return StageKind.MAP; }

    @Override
    public void apply(Envelope in, List<Envelope> out, IdSource ids) {
        Object result = fn.apply(in.value);
        if (result != null) {
            in.value = result;
            out.add(in);
        }
    }
}
