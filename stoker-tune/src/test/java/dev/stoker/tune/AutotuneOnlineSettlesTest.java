package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.SteadyStateModel.Model;
import dev.stoker.tune.SteadyStateModel.StageModel;
import dev.stoker.tune.SyntheticPipelines.Kind;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.tune.internal.AutotuneChange.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The online autotuner, from a bad start, settles within 10% of the exhaustive grid's best, and keeps to its budgets.
 * It tunes models of the synthetic pipelines ({@link SteadyStateModel}, measured with a seeded 3% noise) on a
 * {@link FakeClock}: the tuner's decisions over seconds of windows, the same on every run and under any load. The
 * pipelines themselves, timed on this machine, are {@code SyntheticOptimaBenchmark}'s (docs/benchmarks.md, "Autotuner").
 */
class AutotuneOnlineSettlesTest {
    private static final AutotuneBudget FAST = AutotuneBudget.defaults().withCores(2).withMaxConcurrency(8)
            .withWindow(Duration.ofMillis(150), 2);
    /** A measurement's noise (standard deviation), about what a window of the timed pipelines sees on a quiet machine. */
    private static final double NOISE = 0.03;
    private static final long SECOND_NANOS = 1_000_000_000L;

    /** {@code config} with every stage's settings as a running pipeline reports them (what the tuner reads). */
    private static PipelineConfig settled(PipelineConfig config) {
        PipelineConfig out = config;
        for (Map.Entry<String, StageConfig> s : config.stages().entrySet()) {
            out = out.withStage(s.getKey(), s.getValue().settled());
        }
        return out;
    }

    private static ModelledPipeline modelled(Model model, PipelineConfig start, AutotuneBudget budget, long seed) {
        return new ModelledPipeline(c -> SteadyStateModel.steady(model, c), settled(start), budget, NOISE, seed);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void settlesWithinTenPercentOfTheGridsBest(Kind kind) {
        ModelledPipeline p = modelled(SteadyStateModel.of(kind), kind.start(), FAST, kind.ordinal());
        AutotuneLoop loop = p.loop(6 * SECOND_NANOS);
        loop.run();   // closed at 6 s: a probe in flight is stepped back
        List<AutotuneChange> changes = loop.changes();
        long lateChanges = changes.stream().filter(c -> c.outcome() == Outcome.KEPT && c.atMillis() > 5_000).count();
        Map<String, Integer> gridBest = SteadyStateModel.gridBest(kind);
        double tuned = SteadyStateModel.throughput(kind, p.config);
        double best = SteadyStateModel.throughput(kind, kind.configAt(gridBest));
        System.out.printf(Locale.ROOT, "%-8s online: settled at %s=%d %s=%d sink=%d: %.0f/s; grid best %.0f/s %s: %.2f%n", kind,
                kind.first, p.config.stage(kind.first).concurrency(), kind.second, p.config.stage(kind.second).concurrency(),
                p.config.sinkCapacity(), tuned, best, gridBest, tuned / best);
        changes.forEach(c -> System.out.println("  " + c));
        assertThat(changes).as("the tuner moved from the bad start").isNotEmpty();
        assertThat(tuned / best).as("settled config over the grid's best").isGreaterThanOrEqualTo(0.9);
        assertThat(lateChanges).as("kept changes in the last second (settled, not oscillating)").isLessThanOrEqualTo(1);
    }

    @Test
    void givesBackWorkersOverItsCpuBudget() {
        // Three workers spin (all CPU, half a millisecond an item) on 2 cores: the process uses two cores, well over
        // the half core allowed, so the tuner takes workers away, one per window, and never adds one (no CPU room).
        Model spin = new Model(List.of(StageModel.contended("spin", n -> 0.5 * Math.max(1, n / 2))), 0, 1, 2);
        PipelineConfig start = PipelineConfig.EMPTY.withSinkCapacity(2).withStage("spin", StageConfig.EMPTY.withConcurrency(3));
        ModelledPipeline p = modelled(spin, start, FAST.withCores(0.5), 0);
        AutotuneLoop loop = p.loop(10 * SECOND_NANOS);
        loop.run();
        System.out.println("CPU budget: " + loop.changes());
        assertThat(p.config.stage("spin").concurrency()).isEqualTo(1);
        assertThat(loop.changes()).isNotEmpty().allSatisfy(c -> {
            assertThat(c.to()).as("no change adds a worker: %s", c).isLessThan(c.from());
            assertThat(c.outcome()).isEqualTo(Outcome.BUDGET);
            assertThat(c.reason()).contains("over the CPU budget");
        });
        assertThat(p.reasons).isNotEmpty().allMatch(r -> r.startsWith("autotune budget: over the CPU budget"));
    }

    @Test
    void staysWithinItsRamBudget() {
        Kind kind = Kind.LINEAR;
        // work holds 1 MB per item in flight or queued (queue 2): 6 MB allow 4 workers, where 8 would be fastest.
        AutotuneBudget budget = FAST.withRam(6_000_000, Map.of("work", 1_000_000L));
        ModelledPipeline p = modelled(SteadyStateModel.of(kind), kind.start(), budget, 0);
        AutotuneLoop loop = p.loop(4 * SECOND_NANOS);
        loop.run();   // closed at 4 s: a probe in flight (4→3, say) is stepped back
        int work = p.config.stage("work").concurrency();
        System.out.println("RAM budget: work settled at " + work + "; " + loop.changes());
        assertThat(work).isEqualTo(4);
        assertThat(loop.changes()).allMatch(c -> !c.stage().equals("work") || c.to() <= 4);
        assertThat(budget.fitsRam(p.config)).isTrue();
    }
}
