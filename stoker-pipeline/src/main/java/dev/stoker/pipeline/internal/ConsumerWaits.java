package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.QueueStats;
import dev.stoker.pipeline.SinkStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * How the consumer fared: results that were ready, results it waited for, and how long it waited; what says
 * whether the pipeline keeps ahead of the training loop. Written by the one consuming thread, read by any.
 */
final class ConsumerWaits {
    private final LongAdder readyCalls = new LongAdder();
    private final LongAdder waitedCalls = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    // The first result's arrival and its wait: the wait share is measured from there, start-up left out.
    private volatile long firstDeliveryNanos;
    private volatile long firstWaitNanos;

    /** A result was ready when the consumer asked. */
    void ready() {
        readyCalls.increment();
        delivered(0);
    }

    /** The consumer waited {@code waitedNanos} for a result. */
    void waited(long waitedNanos) {
        waitedCalls.increment();
        waitNanos.add(waitedNanos);
        delivered(waitedNanos);
    }

    private void delivered(long waitedNanos) {
        if (firstDeliveryNanos == 0) {   // one consuming thread: no race
            firstWaitNanos = waitedNanos;
            firstDeliveryNanos = System.nanoTime();
        }
    }

    /** Results handed to the consumer: those that were ready and those it waited for. */
    long delivered() {
        return readyCalls.sum() + waitedCalls.sum();
    }

    /** The sink's stats: {@code queue}'s, with the consumer's waits. */
    SinkStats stats(QueueStats queue) {
        long ready = readyCalls.sum();
        long waited = waitedCalls.sum();
        long total = waitNanos.sum();
        long since = firstDeliveryNanos == 0 ? 0 : System.nanoTime() - firstDeliveryNanos;
        double waitShare = since <= 0 ? 0 : Math.min(1, Math.max(0, (total - firstWaitNanos) / (double) since));
        return new SinkStats(queue.capacity(), queue.size(), ready + waited,
                ready + waited == 0 ? 0 : (double) ready / (ready + waited), total / 1e6, waitShare, queue.meanFill());
    }
}
