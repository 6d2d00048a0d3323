package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.SyntheticPipelines.Kind;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.tune.internal.AutotuneChange.Outcome;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A benchmark, not a test (surefire does not run it unless named): both tuners on the synthetic pipelines themselves,
 * timed on this machine, their settled or best config and the grid's best re-measured side by side. Its figures
 * depend on the machine's load, so it belongs with the benchmarks (docs/benchmarks.md, "Autotuner"); the tuners'
 * decisions on the same pipelines are tested on models ({@link TunerFindsKnownOptimaTest},
 * {@link AutotuneOnlineSettlesTest}). Run it on a quiet machine:
 * {@code mvn -o -pl stoker-tune -am verify -Dtest=SyntheticOptimaBenchmark -Dsurefire.failIfNoSpecifiedTests=false}
 * (its output: {@code stoker-tune/target/surefire-reports/dev.stoker.tune.SyntheticOptimaBenchmark-output.txt}).
 */
@Timeout(300)
class SyntheticOptimaBenchmark {
    private static final AutotuneBudget FAST = AutotuneBudget.defaults().withCores(2).withMaxConcurrency(8)
            .withWindow(Duration.ofMillis(150), 2);

    /** Consumes {@code p} for {@code millis} (as the kind's consumer does). */
    private static void consume(Kind kind, Iterator<Integer> it, long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            it.next();
            if (kind.consumerNanos() > 0) {
                SyntheticPipelines.park(0, kind.consumerNanos());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void offlineTunerReachesNinetyPercentOfTheGridsBestWithinTwentyTrials(Kind kind) {
        SyntheticPipelines.Grid g = SyntheticPipelines.grid(kind);   // first, so that it does not load the tuner's trials
        TuneResult result = Tuner.of(kind.space(), SyntheticPipelines.runner(kind, 100, 400))
                .startFrom(kind.startOptions())
                .maxTrials(20)
                .patience(6)
                .cores(2)
                .run();
        PipelineConfig gridBest = kind.configAt(g.bestPoint());
        double[] both = SyntheticPipelines.sideBySide(kind, result.bestOptions().config(), gridBest, 2);   // the larger of each
        System.out.printf(Locale.ROOT, "%-8s offline: start %.0f/s, tuner best %.0f/s (%s, trial %d of %d; %s), grid best"
                        + " %.0f/s %s (measured in the grid: %.0f/s): %.2f of the grid's best%n", kind, result.startMean(),
                both[0], result.best().point(), result.best().trial(), result.experiments().size(), result.stopReason(),
                both[1], g.bestPoint(), g.bestThroughput(), both[0] / both[1]);
        assertThat(result.experiments()).hasSizeLessThanOrEqualTo(20);
        assertThat(both[0] / both[1]).as("tuner's best over the grid's best").isGreaterThanOrEqualTo(0.9);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void onlineTunerSettlesWithinTenPercentOfTheGridsBest(Kind kind) {
        SyntheticPipelines.Grid g = SyntheticPipelines.grid(kind);
        PipelineConfig settled;
        List<AutotuneChange> changes;
        try (Pipeline<Integer> p = kind.build(kind.start()); Autotune tuning = Autotune.online(p, FAST)) {
            consume(kind, p.iterator(), 6_000);
            tuning.close();   // a probe in flight is stepped back
            settled = p.config();
            changes = tuning.changes();
        }
        long lateChanges = changes.stream().filter(c -> c.outcome() == Outcome.KEPT && c.atMillis() > 5_000).count();
        double[] both = SyntheticPipelines.sideBySide(kind, settled, kind.configAt(g.bestPoint()), 2);
        System.out.printf(Locale.ROOT, "%-8s online: settled at %s=%d %s=%d sink=%d: %.0f/s; grid best %.0f/s %s: %.2f;"
                        + " %d kept changes in the last second%n", kind, kind.first, settled.stage(kind.first).concurrency(),
                kind.second, settled.stage(kind.second).concurrency(), settled.sinkCapacity(), both[0], both[1],
                g.bestPoint(), both[0] / both[1], lateChanges);
        assertThat(both[0] / both[1]).as("settled config over the grid's best").isGreaterThanOrEqualTo(0.9);
    }

    @Test
    void onlineTunerGivesBackWorkersOverItsCpuBudget() {
        try (Pipeline<Integer> p = Pipeline.from(java.util.stream.IntStream.iterate(0, i -> i + 1).boxed().iterator())
                .map("spin", SyntheticOptimaBenchmark::spin, s -> s.concurrency(3))
                .build();
             Autotune tuning = Autotune.online(p, FAST.withCores(0.5))) {
            Iterator<Integer> it = p.iterator();
            long start = System.nanoTime();
            while (p.config().stage("spin").concurrency() > 1 && System.nanoTime() - start < 60_000_000_000L) {
                it.next();
            }
            tuning.close();
            System.out.printf(Locale.ROOT, "CPU budget: spin at %d after %.1f s; %s%n", p.config().stage("spin").concurrency(),
                    (System.nanoTime() - start) / 1e9, tuning.changes());
            assertThat(p.config().stage("spin").concurrency()).isEqualTo(1);
        }
    }

    /** About half a millisecond of CPU. */
    private static int spin(int x) {
        long end = System.nanoTime() + 500_000;
        long v = x;
        while (System.nanoTime() < end) {
            v = v * 6364136223846793005L + 1442695040888963407L;
        }
        return (int) (v & 0x7f) + x - (int) (v & 0x7f);
    }

    @Test
    void onlineTunerStaysWithinItsRamBudget() {
        Kind kind = Kind.LINEAR;
        AutotuneBudget budget = FAST.withRam(6_000_000, Map.of("work", 1_000_000L));
        try (Pipeline<Integer> p = kind.build(kind.start()); Autotune tuning = Autotune.online(p, budget)) {
            consume(kind, p.iterator(), 4_000);
            tuning.close();
            System.out.println("RAM budget: work settled at " + p.config().stage("work").concurrency() + "; " + tuning.changes());
            assertThat(p.config().stage("work").concurrency()).isEqualTo(4);
        }
    }
}
