package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.tune.internal.AutotuneChange.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The online tuner's decisions, step by step, on a model of a pipeline and a fake clock: what it keeps, what it
 * steps back, how long it waits before trying a failed probe again, and what a consumer-bound pipeline gets.
 * The model: {@code decode} does 100 items/s a worker on a machine with room for {@code cores} of them (beyond
 * that its task time grows with its workers); {@code resize} takes 1 ms an item on two workers.
 */
class AutotuneStepTest {
    private static final AutotuneBudget BUDGET = AutotuneBudget.defaults().withCores(64).withMaxConcurrency(8)
            .withWindow(Duration.ofMillis(500), 2);
    private static final long WINDOW_NANOS = BUDGET.window().toNanos();

    @Test
    void addsDecodeWorkersWhilePayingThenHoldsAndRetriesEverLessOften() {
        Model model = new Model(3, 0.5);
        AutotuneLoop loop = model.loop();
        assertThat(loop.start()).isTrue();
        while (model.clock.now < 400 * WINDOW_NANOS) {
            assertThat(loop.step()).isTrue();
        }
        List<AutotuneChange> changes = loop.changes();
        changes.forEach(System.out::println);
        assertThat(model.config.stage("decode").concurrency()).as("decode settles where the cores run out").isEqualTo(3);
        assertThat(model.config.stage("resize").concurrency()).as("resize, busy 15%%, gives a worker back").isEqualTo(1);
        List<AutotuneChange> kept = changes.stream().filter(c -> c.outcome() == Outcome.KEPT).toList();
        assertThat(kept).extracting(c -> c.stage() + " " + c.from() + "->" + c.to())
                .containsExactly("decode 1->2", "decode 2->3", "resize 2->1");
        List<AutotuneChange> decodeUp = changes.stream()
                .filter(c -> c.stage().equals("decode") && c.outcome() == Outcome.PROBE && c.to() > c.from()).toList();
        assertThat(decodeUp.get(2).to()).as("two kept steps up in a row: the next probe is two workers").isEqualTo(5);
        assertThat(changes).filteredOn(c -> c.stage().equals("decode") && c.from() >= 3 && c.to() > c.from()
                && c.outcome() != Outcome.PROBE).isEmpty();
        // Every failed probe of decode waits twice as long as the one before it to be tried again, up to the cap.
        List<AutotuneChange> failed = decodeUp.subList(2, decodeUp.size());
        assertThat(failed).hasSizeGreaterThanOrEqualTo(4);
        for (int i = 2; i < failed.size(); i++) {
            long gap = failed.get(i).atMillis() - failed.get(i - 1).atMillis();
            long before = failed.get(i - 1).atMillis() - failed.get(i - 2).atMillis();
            if (gap < Cooldowns.MAX_WINDOWS * BUDGET.window().toMillis()) {
                assertThat(gap).as("gap %d after gap %d", gap, before).isGreaterThan(before);
            }
        }
    }

    @Test
    void aConsumerBoundPipelineGetsNoWorkerMoreAndGivesIdleOnesBack() {
        Model model = new Model(3, 0.01);
        model.config = model.config.withStage("decode", model.config.stage("decode").withConcurrency(2));
        AutotuneLoop loop = model.loop();
        assertThat(loop.start()).isTrue();
        while (model.clock.now < 100 * WINDOW_NANOS) {
            assertThat(loop.step()).isTrue();
        }
        loop.changes().forEach(System.out::println);
        assertThat(loop.changes()).isNotEmpty().allSatisfy(c -> assertThat(c.to()).as("%s", c).isLessThanOrEqualTo(c.from()));
        assertThat(model.config.stage("resize").concurrency()).isEqualTo(1);
        assertThat(model.config.stage("decode").concurrency()).as("decode, busy 100%% of 2, keeps both").isEqualTo(2);
    }

    @Test
    void closingWhileAProbeIsMeasuredStepsItBack() {
        Model model = new Model(3, 0.5);
        model.closeAtMeasurement = 4;   // three for the baseline, then the first probe's
        AutotuneLoop loop = model.loop();
        model.loop = loop;
        loop.run();
        assertThat(loop.changes()).extracting(AutotuneChange::outcome).containsExactly(Outcome.PROBE, Outcome.REVERTED);
        assertThat(loop.changes().get(1).reason()).contains("stopped before the probe was measured");
        assertThat(model.config.stage("decode").concurrency()).isEqualTo(1);
    }

    /** The pipeline and its measurements, as functions of its config. */
    private static final class Model extends ConfigOnlyPipeline {
        final int cores;
        final double consumerWaitShare;
        int measurements;
        int closeAtMeasurement = Integer.MAX_VALUE;
        AutotuneLoop loop;

        Model(int cores, double consumerWaitShare) {
            super(PipelineConfig.EMPTY.withSinkCapacity(8)
                    .withStage("decode", StageConfig.EMPTY.withConcurrency(1).withQueueCapacity(4))
                    .withStage("resize", StageConfig.EMPTY.withConcurrency(2).withQueueCapacity(4)));
            this.cores = cores;
            this.consumerWaitShare = consumerWaitShare;
        }

        AutotuneLoop loop() {
            return new AutotuneLoop(this, this, BUDGET, clock);
        }

        @Override
        public MeasuredWindow measure(BooleanSupplier closed) {
            if (++measurements >= closeAtMeasurement) {
                loop.close();
            }
            if (closed.getAsBoolean()) {
                return null;
            }
            long windows = BUDGET.probeWindows();
            clock.parkNanos(windows * WINDOW_NANOS);
            double seconds = windows * WINDOW_NANOS / 1e9;
            int decode = config.stage("decode").concurrency();
            int resize = config.stage("resize").concurrency();
            // +-1%, the same sequence every run: measurements of the unchanged model differ, as on a machine
            double jitter = 1 + 0.01 * ((measurements % 3) - 1);
            double throughput = 100 * Math.min(decode, cores) * jitter;
            double decodeTaskMillis = 10.0 * Math.max(1, (double) decode / cores);
            Map<String, Double> busy = Map.of(
                    "decode", Math.min(1, throughput * decodeTaskMillis / 1000 / decode),
                    "resize", Math.min(1, throughput * 1.0 / 1000 / resize));
            return new MeasuredWindow(seconds, throughput, consumerWaitShare, Double.NaN, busy,
                    Map.of("decode", decodeTaskMillis, "resize", 1.0), Map.of("decode", decode, "resize", resize),
                    Map.of("decode", 0.0, "resize", 0.0), 0, Math.round(throughput * seconds), windows);
        }
    }
}
