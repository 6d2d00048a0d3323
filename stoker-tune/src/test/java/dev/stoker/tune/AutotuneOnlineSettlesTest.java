package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.SyntheticPipelines.Kind;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The online autotuner, from a bad start, settles within 10% of the exhaustive grid's best, and keeps to its budget. */
@Timeout(120)
class AutotuneOnlineSettlesTest {
    private static final AutotuneBudget FAST = AutotuneBudget.defaults().withCores(2).withMaxConcurrency(8)
            .withWindow(Duration.ofMillis(150), 2);

    /** Consumes {@code p} for {@code millis} (as the kind's consumer does). */
    private static void consume(Kind kind, Pipeline<Integer> p, Iterator<Integer> it, long millis) {
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
    void settlesWithinTenPercentOfTheGridsBest(Kind kind) {
        SyntheticPipelines.Grid g = SyntheticPipelines.grid(kind);
        PipelineConfig settled;
        List<AutotuneChange> changes;
        long lateChanges;
        try (Pipeline<Integer> p = kind.build(kind.start()); Autotune tuning = Autotune.online(p, FAST)) {
            Iterator<Integer> it = p.iterator();
            consume(kind, p, it, 6_000);
            tuning.close();   // a probe in flight is stepped back
            settled = p.config();
            changes = tuning.changes();
            lateChanges = changes.stream().filter(c -> c.outcome().equals("kept") && c.atMillis() > 5_000).count();
            assertThat(p.stats().stage(kind.second).concurrency()).isEqualTo(settled.stage(kind.second).concurrency());
        }
        PipelineConfig gridBest = kind.configAt(g.bestPoint());
        double[] both = SyntheticPipelines.sideBySide(kind, settled, gridBest, 2);   // the larger of each
        double tuned = both[0];
        double best = both[1];
        System.out.printf(Locale.ROOT, "%-8s online: settled at %s=%d %s=%d sink=%d: %.0f/s; grid best %.0f/s %s: %.2f%n", kind,
                kind.first, settled.stage(kind.first).concurrency(), kind.second, settled.stage(kind.second).concurrency(),
                settled.sinkCapacity(), tuned, best, g.bestPoint(), tuned / best);
        changes.forEach(c -> System.out.println("  " + c));
        assertThat(tuned / best).as("settled config over the grid's best").isGreaterThanOrEqualTo(0.9);
        assertThat(lateChanges).as("kept changes in the last second (settled, not oscillating)").isLessThanOrEqualTo(1);
    }

    @Test
    void givesBackWorkersOverItsCpuBudget() {
        // Three workers spin (real CPU): the process uses well over half a core, so the tuner takes workers
        // away, one per window, and never adds one (no CPU room at half a core).
        AutotuneBudget budget = FAST.withCores(0.5);
        try (Pipeline<Integer> p = Pipeline.from(java.util.stream.IntStream.iterate(0, i -> i + 1).boxed().iterator())
                .map("spin", AutotuneOnlineSettlesTest::spin, s -> s.concurrency(3))
                .build();
             Autotune tuning = Autotune.online(p, budget)) {
            Iterator<Integer> it = p.iterator();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (p.config().stage("spin").concurrency() > 1 && System.nanoTime() < deadline) {
                it.next();
            }
            tuning.close();
            System.out.println("CPU budget: " + tuning.changes());
            assertThat(p.config().stage("spin").concurrency()).isEqualTo(1);
            assertThat(tuning.changes()).isNotEmpty().allSatisfy(c -> {
                assertThat(c.to()).as("no change adds a worker: %s", c).isLessThan(c.from());
                assertThat(c.outcome()).isEqualTo("budget");
                assertThat(c.reason()).contains("over the CPU budget");
            });
            assertThat(p.stats().reconfigurations()).extracting(r -> r.reason())
                    .allMatch(r -> r.startsWith("autotune budget: over the CPU budget"));
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
    void staysWithinItsRamBudget() {
        Kind kind = Kind.LINEAR;
        // work holds 1 MB per item in flight or queued (queue 2): 6 MB allow 4 workers, where 8 would be fastest.
        AutotuneBudget budget = FAST.withRam(6_000_000, Map.of("work", 1_000_000L));
        try (Pipeline<Integer> p = kind.build(kind.start()); Autotune tuning = Autotune.online(p, budget)) {
            consume(kind, p, p.iterator(), 4_000);
            tuning.close();   // a probe in flight (4→3, say) is stepped back
            int work = p.config().stage("work").concurrency();
            System.out.println("RAM budget: work settled at " + work + "; " + tuning.changes());
            assertThat(work).isEqualTo(4);
            assertThat(tuning.changes()).allMatch(c -> !c.stage().equals("work") || c.to() <= 4);
        }
    }
}
