package dev.stoker.pipeline.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Groups consecutive items into lists of {@code size}. Batches never span an epoch boundary: the
 * partial batch at an epoch end (or the end of stream) is emitted, or dropped with {@code dropLast}.
 * Runs on one worker, since it holds the partial batch between items.
 */
public final class BatchStage implements StageFunction {
    private final int size;
    private final boolean dropLast;
    private List<Object> pending;

    public BatchStage(int size, boolean dropLast) {
        if (size < 1) {
            throw new IllegalArgumentException("batch size: " + size + " (expected: 1+)");
        }
        this.size = size;
        this.dropLast = dropLast;
        this.pending = new ArrayList<>(size);
    }

    @Override
    public StageKind kind() { return StageKind.BATCH; }

    @Override
    public boolean sequential() { return true; }

    @Override
    public void apply(Envelope in, List<Envelope> out, IdSource ids) {
        pending.add(in.value);
        if (pending.size() == size) {
            // Hand the list itself over (read-only) and start a new one: no copy per batch.
            out.add(new Envelope(ids.nextId(), in.epoch, Collections.unmodifiableList(pending)));
            pending = new ArrayList<>(size);
        }
    }

    @Override
    public void flush(int epoch, List<Envelope> out, IdSource ids) {
        if (pending.isEmpty()) {
            return;
        }
        if (dropLast) {
            for (Object dropped : pending) {
                Envelope.release(dropped);
            }
        } else {
            out.add(new Envelope(ids.nextId(), epoch, Collections.unmodifiableList(pending)));
        }
        pending = new ArrayList<>(size);
    }

    /** Items held in the partial batch, released when the pipeline closes. */
    List<Object> drainPending() {
        List<Object> held = pending;
        pending = new ArrayList<>(size);
        return held;
    }
}
