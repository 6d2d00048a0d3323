package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.ConsumerSide;
import dev.stoker.pipeline.internal.Envelope;
import dev.stoker.pipeline.internal.Marker;
import dev.stoker.pipeline.internal.PipelineRuntime;
import dev.stoker.pipeline.internal.SourceSpec;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A running pipeline: iterate it for results, ask it for {@link #stats()} and {@link #failures()}, and
 * close it (try-with-resources) to stop every thread it started. Built by {@link PipelineBuilder},
 * which {@link #from} starts.
 *
 * <p>Iteration is single-consumer. {@link #iterator()} runs through every epoch; {@link #nextEpoch()}
 * gives one epoch at a time. When a failure budget is exceeded, the next call throws a
 * {@link PipelineFailedException} naming the failing stages; failures within budget are skipped and
 * listed by {@link #failures()}.
 */
public final class Pipeline<T> implements Iterable<T>, AutoCloseable {
    private final PipelineRuntime runtime;
    private final ConsumerSide consumer;
    private Object lookahead;     // an Envelope or Marker fetched but not consumed
    private boolean ended;
    private boolean iteratorTaken;
    private volatile boolean closed;

    Pipeline(PipelineRuntime runtime) {
        this.runtime = runtime;
        this.consumer = runtime.consumer();
    }

    /** Starts a pipeline description over the items of an {@code Iterable} (one pass, or epochs with {@link PipelineBuilder#continuous()}). */
    public static <S> PipelineBuilder<S> from(Iterable<? extends S> items) {
        return new PipelineBuilder<>(SourceSpec.once(Objects.requireNonNull(items, "items")));
    }

    /** Starts a pipeline description over an iterator, read once. */
    public static <S> PipelineBuilder<S> from(Iterator<? extends S> items) {
        return new PipelineBuilder<>(SourceSpec.once(Objects.requireNonNull(items, "items")));
    }

    /** Starts a pipeline description over a supplier, called until it returns {@code null}. */
    public static <S> PipelineBuilder<S> from(Supplier<? extends S> items) {
        return new PipelineBuilder<>(SourceSpec.supplier(Objects.requireNonNull(items, "items")));
    }

    /** Starts a pipeline description over a continuous source in epochs. */
    public static <S> PipelineBuilder<S> fromEpochs(EpochSource<? extends S> epochs) {
        return new PipelineBuilder<>(SourceSpec.epochs(Objects.requireNonNull(epochs, "epochs"), -1));
    }

    /** Every result of every epoch, in sink order. Can be taken once. */
    @Override
    public Iterator<T> iterator() {
        synchronized (this) {
            if (iteratorTaken) {
                throw new IllegalStateException("a pipeline can be iterated once (single consumer); use nextEpoch() for epoch-wise reading");
            }
            iteratorTaken = true;
        }
        return new ResultIterator(false);
    }

    /**
     * The results of the next epoch: iteration ends at the epoch boundary. Call again for the epoch after.
     * After the stream has ended, returns an empty iterable.
     */
    public Iterable<T> nextEpoch() {
        if (lookahead instanceof Marker.EpochEnd) {
            lookahead = null;
        }
        return () -> new ResultIterator(true);
    }

    /** Whether the stream has more results (blocks until it knows). */
    public boolean hasMoreEpochs() {
        if (lookahead instanceof Marker.EpochEnd) {
            lookahead = null;
        }
        return advance(false);
    }

    /**
     * Whether iteration has reached the end of the stream: after an epoch's iterator ({@link #nextEpoch()})
     * ends, tells an epoch boundary (false) from the end (true). Does not block.
     */
    public boolean endOfStream() { return ended; }

    /** The epoch of the last result handed out. */
    public int epoch() { return consumer.epoch(); }

    private final class ResultIterator implements Iterator<T> {
        private final boolean stopAtEpochEnd;

        ResultIterator(boolean stopAtEpochEnd) {
            this.stopAtEpochEnd = stopAtEpochEnd;
        }

        @Override
        public boolean hasNext() {
            return advance(stopAtEpochEnd);
        }

        @Override
        @SuppressWarnings("unchecked")
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Envelope e = (Envelope) lookahead;
            lookahead = null;
            consumer.epoch(e.epoch);
            return (T) e.value;
        }
    }

    /** Positions {@link #lookahead} on the next result; false at the end (or an epoch end, if asked). */
    private boolean advance(boolean stopAtEpochEnd) {
        while (true) {
            if (lookahead instanceof Envelope) {
                return true;
            }
            if (ended) {
                return false;
            }
            if (lookahead instanceof Marker.EpochEnd) {
                if (stopAtEpochEnd) {
                    return false;
                }
                lookahead = null;
            }
            Object next = fetch();
            if (next instanceof Marker.EndOfStream) {
                ended = true;
                consumer.finished();
            } else {
                lookahead = next;
            }
        }
    }

    private Object fetch() {
        if (closed) {
            throw new IllegalStateException("pipeline is closed");
        }
        return consumer.next();
    }

    /**
     * A snapshot of every stage's counters, the sink's and the bottleneck verdict. Once iteration has reached the end
     * of the stream ({@link #endOfStream()}), the snapshot taken then, on every call (only later
     * {@link #reconfigure reconfigurations} are added).
     */
    public PipelineStats stats() { return runtime.stats(); }

    /** Failed items so far (the first 10,000), each with stage, item and cause. */
    public List<Failure> failures() { return runtime.failures(); }

    /** The settings this pipeline runs with, every field filled in: save it, edit it, feed it back. */
    public PipelineConfig config() { return runtime.effectiveConfig(); }

    /**
     * Changes a stage's concurrency and/or input queue capacity while the pipeline runs: the non-null
     * {@code concurrency} and {@code queueCapacity} of {@code change} (its other fields must be null or equal
     * to the stage's). Added workers start at once; a retired worker finishes its current task and then
     * leaves, so no item is lost or processed twice, and once the retired ones have left, no more than the
     * new concurrency run tasks. A smaller queue drops nothing: producers wait until it drains below the new
     * capacity. A stage that keeps input order keeps it at any concurrency. {@link #config()} shows the change,
     * {@link #stats()} lists it ({@link PipelineStats#reconfigurations()}), and the trace draws it (counters
     * {@code concurrency STAGE}, {@code capacity STAGE}, and a slice on the caller's thread).
     *
     * @param stage  a stage of this pipeline, or {@code "sink"} (then only {@code queueCapacity}: the sink buffer)
     * @throws IllegalArgumentException for an unknown stage, other fields changed, or a batch stage above 1
     * @throws UnsupportedOperationException for a stage running in another process
     * @throws IllegalStateException when the pipeline is closed
     */
    public void reconfigure(String stage, StageConfig change) {
        reconfigure(stage, change, "");
    }

    /** {@link #reconfigure(String, StageConfig)}, with the reason the stats and the trace record. */
    public void reconfigure(String stage, StageConfig change, String reason) {
        runtime.reconfigure(Objects.requireNonNull(stage, "stage"), change, reason);
    }

    /**
     * Calls {@code listener} inside every later {@link #reconfigure} with the config about to take effect,
     * before it does: what the config sizes (buffer pools, say) can grow before new workers or deeper queues
     * need it. It runs on the reconfiguring thread and must be quick.
     */
    public void beforeReconfigure(java.util.function.Consumer<PipelineConfig> listener) {
        runtime.beforeReconfigure(listener);
    }

    /** Reports the stall watchdog made so far. */
    public List<StallReport> stallReports() { return runtime.stallReports(); }

    /** Threads this pipeline started that are still alive (none after {@link #close()} returns). */
    public List<Thread> liveThreads() { return runtime.liveThreads(); }

    /** Stops every thread the pipeline started, even those blocked in a stage function, and waits for them. */
    @Override
    public void close() {
        closed = true;
        runtime.close();
    }
}
