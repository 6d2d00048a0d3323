package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.StageStats;
import java.util.List;

/**
 * What a trial measured: the steady-state throughput, and the per-stage signals the tuner's hypotheses
 * read (compact, so that {@code experiments.jsonl} holds them and a resumed search can read them back).
 *
 * @param samplesPerSecond steady-state throughput: what the tuner maximises
 * @param bottleneck       the verdict's stage ({@code consumer}, {@code source} or a stage name)
 * @param state            the verdict's state: saturated, starved, consumer-bound, busiest, overhead
 * @param verdict          the verdict's line
 * @param dataReadiness    share of the consumer's calls served without waiting
 * @param sinkMeanFill     mean fill of the sink buffer, 0..1
 * @param stages           per stage (source first)
 * @param cpuCores         CPU the trial used, in cores (CPU time / wall time; NaN when unknown)
 * @param otherCores       CPU the rest of the machine used meanwhile, in cores (null when unknown): a trial that
 *                         shared a loaded machine says so
 * @param effectiveConfig  the config the trial ran with, every field set (null when unknown)
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record TrialMetrics(
        double samplesPerSecond,
        String bottleneck,
        String state,
        String verdict,
        double dataReadiness,
        double sinkMeanFill,
        List<Stage> stages,
        Double cpuCores,
        Double otherCores,
        @JsonIgnore PipelineConfig effectiveConfig) {

    /**
     * One stage's signals.
     *
     * @param concurrency   workers
     * @param busy          share of worker time in tasks
     * @param idle          share waiting for input
     * @param backPressured share waiting for room downstream
     * @param taskMeanMillis mean task time
     * @param taskP50Millis median task time
     * @param queueCapacity input queue capacity
     * @param queueFull     share of time the input queue was full
     * @param queueEmpty    share of time it was empty
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Stage(
            String name,
            int concurrency,
            double busy,
            double idle,
            double backPressured,
            @JsonProperty("task_mean_ms") double taskMeanMillis,
            @JsonProperty("task_p50_ms") double taskP50Millis,
            int queueCapacity,
            double queueFull,
            double queueEmpty) {

        static Stage of(StageStats s) {
            return new Stage(s.name(), s.concurrency(), round(s.busyFraction()), round(s.idleFraction()),
                    round(s.backPressuredFraction()), round(s.taskTime().meanMicros() / 1000.0),
                    round(s.taskTime().p50Micros() / 1000.0), s.inputQueue().capacity(),
                    round(s.inputQueue().fullFraction()), round(s.inputQueue().emptyFraction()));
        }

        /** Workers busy on average: busy share x workers. */
        public double busyWorkers() {
            return busy * concurrency;
        }
    }

    /** Metrics from a throughput and a stats snapshot of the trial's pipeline. */
    public static TrialMetrics of(double samplesPerSecond, PipelineStats stats, double cpuCores, PipelineConfig effectiveConfig) {
        return of(samplesPerSecond, stats, cpuCores, Double.NaN, effectiveConfig);
    }

    /** {@link #of(double, PipelineStats, double, PipelineConfig)}, with the CPU the rest of the machine used meanwhile. */
    public static TrialMetrics of(double samplesPerSecond, PipelineStats stats, double cpuCores, double otherCores,
                                  PipelineConfig effectiveConfig) {
        return new TrialMetrics(samplesPerSecond, stats.verdict().bottleneck(), stats.verdict().state().code(),
                stats.verdict().line(), round(stats.sink().dataReadiness()), round(stats.sink().meanFill()),
                stats.stages().stream().map(Stage::of).toList(), Double.isNaN(cpuCores) ? null : round(cpuCores),
                Double.isNaN(otherCores) ? null : round(otherCores), effectiveConfig);
    }

    /** CPU used in cores, NaN when unknown. */
    public double cpu() {
        return cpuCores == null ? Double.NaN : cpuCores;
    }

    /** A failed or stats-less trial: only a throughput. */
    public static TrialMetrics throughputOnly(double samplesPerSecond) {
        return new TrialMetrics(samplesPerSecond, "", "", "", 0, 0, List.of(), null, null, null);
    }

    /** The named stage, or null. */
    public Stage stage(String name) {
        for (Stage s : stages) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    private static double round(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }
}
