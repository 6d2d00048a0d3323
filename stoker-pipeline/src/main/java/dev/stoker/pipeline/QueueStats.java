package dev.stoker.pipeline;

/**
 * Occupancy of a queue since the pipeline started.
 *
 * @param capacity      slots
 * @param size          elements queued now
 * @param meanFill      time-weighted mean of size / capacity, in [0, 1]
 * @param emptyFraction share of time the queue was empty
 * @param fullFraction  share of time the queue was full
 */
public record QueueStats(int capacity, int size, double meanFill, double emptyFraction, double fullFraction) { }
