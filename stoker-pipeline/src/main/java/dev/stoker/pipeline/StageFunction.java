package dev.stoker.pipeline;

import java.util.List;

/**
 * What a stage does to one input: the closed set of stage kinds, one small class each. Outputs are
 * appended to {@code out} as envelopes; appending nothing drops the item.
 */
sealed interface StageFunction permits MapStage, FlatMapStage, FilterStage, BatchStage {

    StageKind kind();

    void apply(Envelope in, List<Envelope> out, IdSource ids) throws Exception;

    /** Called at an epoch end or the end of stream, before the marker is forwarded: emit held state. */
    default void flush(int epoch, List<Envelope> out, IdSource ids) { }

    /** Whether the stage keeps state between items and so must run on one worker. */
    default boolean sequential() {
        return false;
    }

    /** Hands out pipeline-wide item ids for items a stage creates. */
    interface IdSource {
        long nextId();
    }
}
