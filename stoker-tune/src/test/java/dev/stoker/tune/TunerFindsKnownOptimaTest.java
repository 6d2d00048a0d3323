package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.SyntheticPipelines.Kind;
import java.util.Locale;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The offline tuner, with an in-process trial runner on pipelines whose optimum is known, reaches 90% of
 * the exhaustive grid's best throughput within 20 trials (both re-measured side by side, at the same time,
 * at the end).
 */
@Timeout(120)
class TunerFindsKnownOptimaTest {

    @ParameterizedTest
    @EnumSource(Kind.class)
    void reachesNinetyPercentOfTheGridsBestWithinTwentyTrials(Kind kind) {
        SyntheticPipelines.Grid g = SyntheticPipelines.grid(kind);   // first, so that it does not load the tuner's trials
        TuneResult result = Tuner.of(kind.space(), SyntheticPipelines.runner(kind, 100, 400))
                .startFrom(kind.startOptions())
                .maxTrials(20)
                .patience(6)
                .cores(2)
                .run();

        PipelineConfig gridBest = kind.configAt(g.bestPoint());
        double[] both = SyntheticPipelines.sideBySide(kind, result.bestOptions().config(), gridBest, 2);   // the larger of each
        double tuned = both[0];
        double best = both[1];
        System.out.printf(Locale.ROOT, "%-8s start %.0f/s, tuner best %.0f/s (%s, trial %d of %d; %s), grid best %.0f/s %s"
                        + " (measured in the grid: %.0f/s): %.2f of the grid's best%n", kind, result.startMean(), tuned,
                result.best().point(), result.best().trial(), result.experiments().size(), result.stopReason(), best,
                g.bestPoint(), g.bestThroughput(), tuned / best);
        result.experiments().forEach(e -> System.out.printf(Locale.ROOT, "  #%d<-%d %-10s %-28s %6.0f/s %s  %s%n", e.trial(),
                e.parent(), e.phase(), e.change() == null ? "" : e.change(), e.samplesPerSecond(), e.kept() ? "KEPT" : "    ",
                e.hypothesis()));
        assertThat(result.experiments()).hasSizeLessThanOrEqualTo(20);
        assertThat(tuned / best).as("tuner's best over the grid's best").isGreaterThanOrEqualTo(0.9);
    }
}
