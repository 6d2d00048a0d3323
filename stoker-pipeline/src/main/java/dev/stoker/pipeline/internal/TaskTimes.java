package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.TaskTimeStats;
import org.HdrHistogram.Histogram;

/** Reads a task-time histogram (microseconds) into its summary. */
final class TaskTimes {
    private TaskTimes() { }

    static TaskTimeStats of(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return TaskTimeStats.EMPTY;
        }
        return new TaskTimeStats(micros.getTotalCount(), micros.getMean(), micros.getValueAtPercentile(50),
                micros.getValueAtPercentile(90), micros.getValueAtPercentile(99), micros.getMaxValue());
    }
}
