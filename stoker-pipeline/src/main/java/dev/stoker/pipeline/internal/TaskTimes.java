package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.TaskTimeStats;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Task durations of one stage (or the source), in microseconds: workers record into a wait-free
 * {@link Recorder}; a snapshot folds its latest interval into the running total and summarises that.
 */
final class TaskTimes {
    private final Recorder micros = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private Histogram recycled;   // under 'total'

    void recordNanos(long nanos) {
        micros.recordValue(nanos / 1000);
    }

    TaskTimeStats snapshot() {
        synchronized (total) {
            recycled = micros.getIntervalHistogram(recycled);
            total.add(recycled);
            if (total.getTotalCount() == 0) {
                return TaskTimeStats.EMPTY;
            }
            return new TaskTimeStats(total.getTotalCount(), total.getMean(), total.getValueAtPercentile(50),
                    total.getValueAtPercentile(90), total.getValueAtPercentile(99), total.getMaxValue());
        }
    }
}
