package dev.stoker.pipeline;

/**
 * The consumer's view.
 *
 * @param capacity           sink buffer slots
 * @param size               results ready now
 * @param delivered          results handed to the consumer
 * @param dataReadiness      share of the consumer's {@code next()} calls served without waiting
 * @param consumerWaitMillis total time the consumer waited for data
 * @param consumerWaitShare  share of the consumer's time since its first result spent waiting for the next one
 *                           (what {@link Bottleneck#consumerBound} judges; start-up left out)
 * @param meanFill           time-weighted mean fill of the sink buffer, in [0, 1]
 */
public record SinkStats(int capacity, int size, long delivered, double dataReadiness, double consumerWaitMillis,
                        double consumerWaitShare, double meanFill) {

    /**
     * The share of the consumer's requests served without waiting since {@code earlier} (a snapshot of the same
     * sink): what a run's steady state saw, its warm-up left out. This snapshot's whole readiness when
     * {@code earlier} is null or nothing was delivered since.
     */
    public double dataReadinessSince(SinkStats earlier) {
        if (earlier == null || delivered <= earlier.delivered) {
            return dataReadiness;
        }
        double ready = dataReadiness * delivered - earlier.dataReadiness * earlier.delivered;
        return Math.max(0, Math.min(1, ready / (delivered - earlier.delivered)));
    }
}
