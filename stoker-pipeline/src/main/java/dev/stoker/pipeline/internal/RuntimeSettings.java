package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StallReport;
import dev.stoker.pipeline.TraceRecorder;
import java.util.function.Consumer;

/**
 * What a {@link PipelineRuntime} runs with besides its source and stages, as the builder resolved it.
 *
 * @param config  the effective config, every field set (its failure budget is the pipeline-wide one)
 * @param onStall where stall reports go
 * @param trace   the trace recorder, or {@code null}
 * @param hosted  stages running elsewhere (a child JVM) that feed the source, or {@code null}
 * @param judge   the bottleneck verdict over the stages' and the sink's stats and the CPUs' use
 */
public record RuntimeSettings(PipelineConfig config, Consumer<StallReport> onStall,
                              TraceRecorder trace, HostedStages hosted,
                              BottleneckJudge judge) {
}
