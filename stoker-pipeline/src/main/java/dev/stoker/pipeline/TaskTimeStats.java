package dev.stoker.pipeline;

/** Distribution of one stage's task durations, in microseconds (HdrHistogram, 3 significant digits). */
public record TaskTimeStats(long count, double meanMicros, long p50Micros, long p90Micros, long p99Micros, long maxMicros) {
    public static final TaskTimeStats EMPTY = new TaskTimeStats(0, 0, 0, 0, 0, 0);
}
