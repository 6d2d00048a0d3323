package dev.stoker.tune;

import dev.stoker.pipeline.PipelineConfig;
import java.util.Map;

/**
 * What one trial runs.
 *
 * @param trial         trial number (0 for the first)
 * @param config        the pipeline config to run, laid over the code's defaults by stage name
 * @param options       other knobs, by name without the {@code option.} prefix (e.g. {@code decoder-threads=2})
 * @param timeoutMillis the trial is stopped and counted as failed after this long
 */
public record TrialSpec(int trial, PipelineConfig config, Map<String, String> options, long timeoutMillis) {
    public TrialSpec {
        options = Map.copyOf(options);
    }
}
