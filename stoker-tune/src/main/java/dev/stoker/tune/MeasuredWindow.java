package dev.stoker.tune;

import java.util.Map;

/**
 * What the online tuner saw over one measurement of the pipeline.
 *
 * @param seconds           how long it ran
 * @param throughput        items/s at the sink over the ticks that were not stalls ({@link TickRate})
 * @param consumerWaitShare share of the time the consumer waited for data
 * @param cores             process CPU over the span, in cores (NaN where the JVM cannot say)
 * @param busy              by stage: its busy share of its worker-time
 * @param taskMillis        by stage: its mean task time, where tasks finished
 * @param concurrency       by stage: its workers
 * @param queueEmpty        by stage: the share of looks that found its input queue empty
 * @param sinkFullShare     the share of looks that found the sink full
 * @param items             items delivered
 * @param windows           the tuner's windows it took (it runs on past its own until it has seen enough items)
 */
record MeasuredWindow(double seconds, double throughput, double consumerWaitShare, double cores,
                      Map<String, Double> busy, Map<String, Double> taskMillis, Map<String, Integer> concurrency,
                      Map<String, Double> queueEmpty, double sinkFullShare, long items, long windows) {
}
