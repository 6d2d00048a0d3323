package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.SinkStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.Verdict;
import java.util.List;

/** The bottleneck verdict over one stats snapshot: the stages' and the sink's stats, and how busy the CPUs were. */
@FunctionalInterface
public interface BottleneckJudge {
    Verdict judge(List<StageStats> stages, SinkStats sink, CpuUse cpu);
}
