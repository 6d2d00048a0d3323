package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.HostedStages;

/**
 * Somewhere other than the building thread's process where a pipeline's leading stages run, such as a
 * child JVM ({@code dev.stoker.pipeline.subprocess.SubprocessOptions}). {@link PipelineBuilder#isolate}
 * hands it the description of the stages before the split and the pipeline's source; it hands back
 * their outputs, which the stages after the split consume like any source.
 */
public interface StageHost {

    /**
     * Starts running {@code spec}'s stages over {@code inputs}; returns once they run (or throws).
     *
     * @param spec   the stages to run (every one {@linkplain PipelineSpec.Stage#reconstructible reconstructible})
     *               and their effective knobs
     * @param inputs the pipeline's source, epoch by epoch ({@code null} for an epoch ends the stream); read by
     *               the host on a thread of its own
     * @param trace  the pipeline's trace recorder, or {@code null}: the host may add its stages' slices
     */
    HostedStages start(PipelineSpec spec, EpochSource<?> inputs, TraceRecorder trace);
}
