package dev.stoker.tune;

import dev.stoker.pipeline.PipelineConfig;
import java.util.List;
import java.util.Map;

/**
 * What a search found.
 *
 * @param best          the best trial (the incumbent when the search stopped)
 * @param bestConfig    its pipeline config: write it, load it with {@code stoker bench --config}
 * @param bestOptions   its {@code option.*} knobs
 * @param start         the first trial (the start config)
 * @param startMean     mean throughput of the start config over its repeats
 * @param noise         standard deviation of those repeats (samples/s; NaN with fewer than 2)
 * @param experiments   every trial, in order
 * @param stopReason    why the search stopped, in words
 */
public record TuneResult(Experiment best, PipelineConfig bestConfig, Map<String, String> bestOptions, Experiment start,
                         double startMean, double noise, List<Experiment> experiments, String stopReason) {

    /** Best throughput over the start config's mean. */
    public double speedup() {
        return startMean > 0 ? best.samplesPerSecond() / startMean : Double.NaN;
    }
}
