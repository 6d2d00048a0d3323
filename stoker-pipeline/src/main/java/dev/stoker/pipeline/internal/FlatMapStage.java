package dev.stoker.pipeline.internal;

import java.util.List;
import java.util.function.Function;

/** One in, any number out (SPDL's disaggregate): a video into its clips. */
public final class FlatMapStage implements StageFunction {
    private final Function<Object, Iterable<?>> fn;

    @SuppressWarnings("unchecked")
    public FlatMapStage(Function<?, ? extends Iterable<?>> fn) {
        this.fn = (Function<Object, Iterable<?>>) fn;
    }

    @Override
    public StageKind kind() { return StageKind.FLAT_MAP; }

    @Override
    public void apply(Envelope in, List<Envelope> out, IdSource ids) {
        Iterable<?> results = fn.apply(in.value);
        if (results == null) {
            return;
        }
        for (Object result : results) {
            if (result != null) {
                out.add(new Envelope(ids.nextId(), in.epoch, result));
            }
        }
    }
}
