package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.SinkStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * The consumer's end of the sink: takes the next result or marker for the one consuming thread, and counts how
 * the consumer fared: results that were ready, results it waited for, and how long it waited (the sink's
 * stats, which say whether the pipeline keeps ahead of the training loop).
 */
public final class ConsumerSide {
    private final PipelineRuntime runtime;
    private final BoundedQueue sink;
    private final LongAdder readyCalls = new LongAdder();
    private final LongAdder waitedCalls = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private volatile boolean waiting;
    // The first result's arrival and its wait: the wait share is measured from there, start-up left out.
    private volatile long firstDeliveryNanos;
    private volatile long firstWaitNanos;
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
                    readyCalls.increment();
                    delivered(0);
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
                long waited = System.nanoTime() - start;
                waitedCalls.increment();
                waitNanos.add(waited);
                delivered(waited);
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

    private void delivered(long waitedNanos) {
        if (firstDeliveryNanos == 0) {   // one consuming thread: no race
            firstWaitNanos = waitedNanos;
            firstDeliveryNanos = System.nanoTime();
        }
    }

    /** The consumer has seen the end of the stream: a quiet pipeline is no longer a stall. */
    public void finished() {
        finished = true;
    }

    boolean isFinished() {
        return finished;
    }

    boolean waiting() {
        return waiting;
    }

    /** Results handed to the consumer: those that were ready and those it waited for. */
    long delivered() {
        return readyCalls.sum() + waitedCalls.sum();
    }

    /** The epoch of the last result handed out. */
    public int epoch() {
        return epoch;
    }

    public void epoch(int epoch) {
        this.epoch = epoch;
    }

    SinkStats snapshot() {
        var queue = sink.snapshot();
        long ready = readyCalls.sum();
        long waited = waitedCalls.sum();
        long total = waitNanos.sum();
        long since = firstDeliveryNanos == 0 ? 0 : System.nanoTime() - firstDeliveryNanos;
        double waitShare = since <= 0 ? 0 : Math.min(1, Math.max(0, (total - firstWaitNanos) / (double) since));
        return new SinkStats(queue.capacity(), queue.size(), ready + waited,
                ready + waited == 0 ? 0 : (double) ready / (ready + waited), total / 1e6, waitShare, queue.meanFill());
    }
}
