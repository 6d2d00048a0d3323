package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.internal.Resources;
import java.util.List;

/**
 * Where a value inside the child came from, so that the child can say when each input is done whatever the
 * stages did with it (mapped, split, filtered out, failed, batched): one input ({@link ItemLineage}) or the
 * inputs a batch stage gathered ({@link GroupLineage}). Every stage of the child is wrapped once, by
 * {@link LineageStage}, to carry it from input to output; the value the stage's function sees is
 * {@link #value()}.
 */
sealed interface Lineage extends AutoCloseable permits ItemLineage, GroupLineage {

    Object value();

    /** The same lineage carrying {@code next} (a map's output); this one is spent. */
    Lineage with(Object next);

    /** Written, dropped or failed: ends this lineage's share of its inputs. */
    void finish();

    /** The input a failure on this value is reported against. */
    long blamedInputId();

    /** Bytes before the value's encoding in its results-ring record. */
    long prefixBytes();

    /** Whether the parent already has this output (its input was sent again after a crash): it is dropped. */
    boolean alreadyDelivered();

    /** The record that carries the value to the parent. */
    Outbound outbound();

    /** Discarded (a failure, a dropped partial batch): releases the value and ends. */
    @Override
    default void close() {
        Resources.release(value());
        finish();
    }

    /** The lineage of what a stage of the child receives: a lineage, or a batch stage's list of item lineages. */
    static Lineage of(Object inStage) {
        if (inStage instanceof Lineage lineage) {
            return lineage;
        }
        return GroupLineage.of((List<?>) inStage);
    }
}
