package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.internal.StageKind;
import dev.stoker.pipeline.internal.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One stage of the child, wrapped so that its outputs carry their inputs' {@link Lineage}: the same wrapper
 * for every kind. The function sees the value; the wrapper ends the input's lineage when the function drops
 * or fails it, carries it on to what the function returns, hands it to the batch stage next (settling it),
 * and for the last stage checks that the output fits the results ring.
 */
final class LineageStage {
    private final Function<Object, Object> fn;
    private final ResultsLimit limit;        // for the last stage, whose outputs go to the results ring; else null
    private final boolean intoBatch;         // the next stage is the batch stage
    private final Map<Throwable, Long> failedInputs;

    private LineageStage(Function<Object, Object> fn, ResultsLimit limit, boolean intoBatch,
                         Map<Throwable, Long> failedInputs) {
        this.fn = fn;
        this.limit = limit;
        this.intoBatch = intoBatch;
        this.failedInputs = failedInputs;
    }

    /**
     * Adds {@code stage} to {@code b}, wrapped. {@code last}: its outputs go to the results ring; {@code intoBatch}:
     * the batch stage comes next; {@code grouped}: it comes after the batch stage (its inputs are groups).
     */
    static PipelineBuilder<Object> add(PipelineBuilder<Object> b, PipelineSpec.Stage stage, boolean last,
                                       boolean intoBatch, boolean grouped, ResultsLimit limit,
                                       Map<Throwable, Long> failedInputs) {
        if (grouped && stage.kind() != StageKind.MAP && stage.kind() != StageKind.FILTER) {
            throw new IllegalArgumentException("stage '" + stage.name() + "' kind: " + stage.kind()
                    + " after a batch stage (expected: map or filter after a batch stage in a child process)");
        }
        LineageStage w = new LineageStage(stage.createFunction(), last ? limit : null, intoBatch, failedInputs);
        return switch (stage.kind()) {
            case MAP -> b.map(stage.name(), w::map);
            case FLAT_MAP -> b.<Object>flatMap(stage.name(), w::flatMap);
            case FILTER -> b.filter(stage.name(), w::filter);
            case BATCH -> throw new IllegalArgumentException("stage '" + stage.name() + "': a batch stage is not wrapped");
        };
    }

    private Object map(Object received) {
        Lineage in = Lineage.of(received);
        Object out = guarded(in, () -> fits(fn.apply(in.value()), in));
        if (out == null) {
            in.finish();
            return null;
        }
        Lineage next = in.with(out);
        return handOn(next) ? next : null;
    }

    private boolean filter(Object received) {
        Lineage in = Lineage.of(received);
        boolean keep = guarded(in, () -> Boolean.TRUE.equals(fn.apply(in.value())) && fits(in.value(), in) != null);
        if (!keep) {
            in.finish();
            return false;
        }
        return handOn(in);
    }

    /** Only before a batch stage (the builder allows no flat-map after one): the input is one item. */
    private List<ItemLineage> flatMap(Object received) {
        ItemLineage in = (ItemLineage) received;
        List<ItemLineage> outs = new ArrayList<>();
        guarded(in, () -> {
            try {
                Object result = fn.apply(in.value());
                if (result != null) {
                    int index = 0;
                    for (Object each : (Iterable<?>) result) {
                        index++;
                        if (each != null) {
                            outs.add(in.child(index, fits(each, in)));
                        }
                    }
                }
            } catch (RuntimeException | Error e) {
                outs.forEach(o -> Resources.release(o.value()));   // not yet counted by the ticket
                throw e;
            }
            return outs;
        });
        in.ticket.add(outs.size());   // before this unit ends, so that the count cannot reach zero early
        in.finish();
        if (intoBatch) {
            outs.removeIf(o -> !o.enterBatch());
        }
        return outs;
    }

    /** Runs one step of the stage on {@code in}; a failure is its input's: blamed, the lineage ended, rethrown. */
    private <T> T guarded(Lineage in, Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException | Error e) {
            failedInputs.put(e, in.blamedInputId());
            in.finish();
            throw e;
        }
    }

    private Object fits(Object out, Lineage in) {
        return limit == null ? out : limit.requireFits(out, in);
    }

    /** Passes {@code out} on; into a batch stage it settles, or is dropped when the parent already has it. */
    private boolean handOn(Lineage out) {
        return !intoBatch || ((ItemLineage) out).enterBatch();
    }
}
