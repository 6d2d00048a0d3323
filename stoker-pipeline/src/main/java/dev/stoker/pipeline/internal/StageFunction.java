package dev.stoker.pipeline.internal;

import java.util.List;
import java.util.function.Function;

/**
 * What a stage does to one input: the closed set of stage kinds, one small class each. Outputs are
 * appended to {@code out} as envelopes; appending nothing drops the item.
 */
public sealed interface StageFunction permits MapStage, FlatMapStage, FilterStage, BatchStage {

    StageKind kind();

    void apply(Envelope in, List<Envelope> out, IdSource ids) throws Exception;

    /** Called at an epoch end or the end of stream, before the marker is forwarded: emit held state. */
    default void flush(int epoch, List<Envelope> out, IdSource ids) { }

    /** Whether the stage keeps state between items and so must run on one worker. */
    default boolean sequential() { return false; }

    /** The function of a {@code kind} stage made by a {@code StageFactory}: {@code fn} as that kind reads it. */
    static StageFunction of(StageKind kind, Function<Object, Object> fn) {
        return switch (kind) {
            case MAP -> new MapStage(fn);
            case FLAT_MAP -> new FlatMapStage(fn.andThen(r -> (Iterable<?>) r));
            case FILTER -> new FilterStage(v -> Boolean.TRUE.equals(fn.apply(v)));
            case BATCH -> throw new IllegalArgumentException("kind: a batch stage is built in, not made by a factory");
        };
    }

    /** Hands out pipeline-wide item ids for items a stage creates. */
    interface IdSource {
        long nextId();
    }
}
