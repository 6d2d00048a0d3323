package dev.stoker.pipeline.internal;

/**
 * An item in flight with the identity the engine tracks it by: a pipeline-wide id (traces, failure
 * reports) and the epoch it belongs to. Map stages reuse the envelope, so an item costs one allocation
 * from source to sink unless a flat-map splits it.
 */
public final class Envelope {
    final long id;
    final int epoch;
    Object value;

    Envelope(long id, int epoch, Object value) {
        this.id = id;
        this.epoch = epoch;
        this.value = value;
    }

    public Object value() {
        return value;
    }

    public int epoch() {
        return epoch;
    }

    /** Releases the value if the pipeline drops it (failure, close) and it holds resources. */
    static void release(Object element) {
        dev.stoker.pipeline.internal.Resources.release(element instanceof Envelope e ? e.value : element);
    }
}
