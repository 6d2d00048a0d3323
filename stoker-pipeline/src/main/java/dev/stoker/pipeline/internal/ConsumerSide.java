package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.SinkStats;

/**
 * The consumer's end of the sink: takes the next result or marker for the one consuming thread, and counts how
 * the consumer fared: results that were ready, results it waited for, and how long it waited (the sink's
 * stats, which say whether the pipeline keeps ahead of the training loop).
 */
public final class ConsumerSide {
    private final PipelineRuntime runtime;
    private final BoundedQueue sink;
    private final ConsumerWaits waits = new ConsumerWaits();
    private volatile boolean waiting;
    private volatile boolean finished;
    private volatile int epoch;

    ConsumerSide(PipelineRuntime runtime, BoundedQueue sink) {
        this.runtime = runtime;
        this.sink = sink;
    }

    /**
     * The next element for the consumer: an {@link Envelope} or a {@link Marker}; blocks until there is one.
     *
     * @throws PipelineFailedException when the run failed
     * @throws IllegalStateException when the pipeline is closed, or the consumer is interrupted
     */
    public Object next() {
        try {
            Object next = sink.poll(0, null);
            if (next != null && next != BoundedQueue.FINISHED) {
                if (next instanceof Envelope) {
                    waits.ready();
                }
                if (next instanceof Marker) {
                    sink.resume();
                }
                return next;
            }
            long start = System.nanoTime();
            waiting = true;
            try {
                next = sink.take(null);
            } finally {
                waiting = false;
            }
            if (next instanceof Envelope) {
                waits.waited(System.nanoTime() - start);
            }
            if (next instanceof Marker) {
                sink.resume();
            }
            return next;
        } catch (BoundedQueue.ClosedException e) {
            PipelineFailedException failure = runtime.failure();
            if (failure != null) {
                throw failure;
            }
            throw new IllegalStateException("pipeline is closed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the pipeline", e);
        }
    }

    /** The consumer has seen the end of the stream: a quiet pipeline is no longer a stall, and its stats are final. */
    public void finished() {
        finished = true;
        runtime.streamEnded();
    }

    boolean isFinished() { return finished; }

    boolean waiting() { return waiting; }

    /** Results handed to the consumer: those that were ready and those it waited for. */
    long delivered() { return waits.delivered(); }

    /** The epoch of the last result handed out. */
    public int epoch() { return epoch; }

    public void epoch(int epoch) {
        this.epoch = epoch;
    }

    SinkStats snapshot() {
        return waits.stats(sink.snapshot());
    }
}
