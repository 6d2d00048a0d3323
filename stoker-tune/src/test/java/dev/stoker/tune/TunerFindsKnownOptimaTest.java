package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.SyntheticPipelines.Kind;
import dev.stoker.tune.internal.TrialRunner;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The offline tuner, on pipelines whose optimum is known, reaches 90% of the exhaustive grid's best throughput
 * within 20 trials. Each trial runs a model of the pipeline ({@link SteadyStateModel}: the throughput and stage
 * signals its config gives, with a seeded 3% noise per trial), so that the search is the same on every run and under
 * any load; the tuner's best and the grid's best are compared without the noise. The pipelines themselves, timed on
 * this machine, are {@code SyntheticOptimaBenchmark}'s (docs/benchmarks.md, "Autotuner").
 */
class TunerFindsKnownOptimaTest {
    /** A trial's noise (standard deviation), about what a 0.4 s trial of the timed pipelines sees on a quiet machine. */
    private static final double NOISE = 0.03;

    /** Instant trials of {@code kind}'s model; trial {@code n}'s noise is drawn from a seed of its own. */
    private static TrialRunner model(Kind kind) {
        SteadyStateModel.Model model = SteadyStateModel.of(kind);
        return trial -> {
            PipelineConfig config = trial.options().config();
            double noise = SteadyStateModel.noise(new SplittableRandom(1_000L * kind.ordinal() + trial.trial()), NOISE);
            return SteadyStateModel.metrics(SteadyStateModel.steady(model, config), noise, config);
        };
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void reachesNinetyPercentOfTheGridsBestWithinTwentyTrials(Kind kind) {
        TuneResult result = Tuner.of(kind.space(), model(kind))
                .startFrom(kind.startOptions())
                .maxTrials(20)
                .patience(6)
                .cores(2)
                .run();

        Map<String, Integer> gridBest = SteadyStateModel.gridBest(kind);
        double tuned = SteadyStateModel.throughput(kind, result.bestOptions().config());
        double best = SteadyStateModel.throughput(kind, kind.configAt(gridBest));
        System.out.printf(Locale.ROOT, "%-8s start %.0f/s, tuner best %.0f/s (%s, trial %d of %d; %s), grid best %.0f/s %s:"
                        + " %.2f of the grid's best%n", kind, result.startMean(), tuned, result.best().point(),
                result.best().trial(), result.experiments().size(), result.stopReason(), best, gridBest, tuned / best);
        result.experiments().forEach(e -> System.out.printf(Locale.ROOT, "  #%d<-%d %-10s %-28s %6.0f/s %s  %s%n", e.trial(),
                e.parent(), e.phase(), e.change() == null ? "" : e.change(), e.samplesPerSecond(), e.kept() ? "KEPT" : "    ",
                e.hypothesis()));
        assertThat(result.experiments()).hasSizeLessThanOrEqualTo(20);
        assertThat(SteadyStateModel.throughput(kind, kind.start())).as("the start is bad").isLessThan(0.9 * best);
        assertThat(tuned / best).as("tuner's best over the grid's best").isGreaterThanOrEqualTo(0.9);
    }
}
