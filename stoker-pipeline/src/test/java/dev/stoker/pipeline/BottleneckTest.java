package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.internal.CpuUse;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The one bottleneck definition, and the verdict that uses it. */
class BottleneckTest {

    @Test
    void aConsumerIsTheBottleneckWhenNoLoaderCouldMakeItFasterByTheSmallestGainWorthActingOn() {
        double limit = Bottleneck.consumerBoundWaitShare();
        // A consumer waiting s of its time can go at most 1 / (1 - s) times as fast: at the limit, by exactly MIN_GAIN.
        assertThat(1 / (1 - limit)).isCloseTo(1 + Bottleneck.MIN_GAIN, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(Bottleneck.consumerBound(limit * 0.99)).isTrue();
        assertThat(Bottleneck.consumerBound(limit)).isFalse();
        assertThat(Bottleneck.saturated(Bottleneck.SATURATED_BUSY)).isTrue();
        assertThat(Bottleneck.saturated(Bottleneck.SATURATED_BUSY - 0.01)).isFalse();
    }

    @Test
    void theVerdictNamesTheConsumerByItsWaitShareNotByReadyCalls() {
        StageStats decode = stage("decode", 0.9);
        // Ready on only half the calls, but those waits were short: 2% of its time. The consumer sets the pace.
        Verdict consumer = BottleneckAnalysis.judge(List.of(stage("source", 0.1), decode), sink(0.5, 0.02));
        assertThat(consumer.state()).isEqualTo(Verdict.State.CONSUMER_BOUND);
        assertThat(consumer.line()).contains("waited for data 2% of its time", "the loader is ahead");
        // Ready on no call, yet waiting 2% of its time: each batch came just as it was asked for, not ahead of it.
        assertThat(BottleneckAnalysis.judge(List.of(stage("source", 0.1), decode), sink(0.0, 0.02)).line())
                .contains("data was ready for 0% of next() calls; the loader keeps pace, each batch just in time")
                .doesNotContain("ahead");
        // Ready on 95% of the calls, but the few waits were long: 30% of its time. The saturated stage is named.
        Verdict stageBound = BottleneckAnalysis.judge(List.of(stage("source", 0.1), decode), sink(0.95, 0.30));
        assertThat(stageBound.state()).isEqualTo(Verdict.State.SATURATED);
        assertThat(stageBound.bottleneck()).isEqualTo("decode");
    }

    @Test
    void aLastStageBlockedMostOfItsTimeNamesTheConsumerEvenWhenTheSinkIsDrainedAtOnce() {
        // A sink drained by a thread that only hands batches on (the bridge's) waits for data; the training loop
        // that holds the buffers shows as the last stage's wait for room.
        StageStats collate = new StageStats("collate", "batch", 1, 100, 100, 0, 0, 1, 0.05, 0.05, 0.9,
                TaskTimeStats.EMPTY, new QueueStats(8, 1, 0.0, 0.9, 0.0));
        Verdict v = BottleneckAnalysis.judge(List.of(stage("source", 0.1), stage("decode", 0.4), collate), sink(0.05, 0.95));
        assertThat(v.state()).isEqualTo(Verdict.State.CONSUMER_BOUND);
        assertThat(v.line()).isEqualTo("bottleneck: consumer (collate, the last stage, waited for room 90% of its time:"
                + " the consumer holds the batches; the loader is ahead)");
    }

    @Test
    void busyCpusWithNoSaturatedStageAreTheBottleneckNotTheBusiestStage() {
        List<StageStats> stages = List.of(stage("source", 0.1), stage("decode", 0.45), stage("collate", 0.3));
        SinkStats waiting = sink(0.4, 0.3);
        Verdict process = BottleneckAnalysis.judge(stages, waiting, new CpuUse(0.97, 0.9, 2));
        assertThat(process.state()).isEqualTo(Verdict.State.CPU_BOUND);
        assertThat(process.bottleneck()).isEqualTo("cpu");
        assertThat(process.line()).contains("busy 97%", "this process 1.9 of its 2 cores", "busiest decode at 45% of 1 worker")
                .doesNotContain("the machine");
        // Other processes took the cores: the machine's share says so.
        Verdict machine = BottleneckAnalysis.judge(stages, waiting, new CpuUse(0.5, 0.98, 2));
        assertThat(machine.state()).isEqualTo(Verdict.State.CPU_BOUND);
        assertThat(machine.line()).contains("busy 98%", "this process 1.0 of its 2 cores, the machine 98%");
        // Only the machine's share known: the line says that one alone.
        assertThat(BottleneckAnalysis.judge(stages, waiting, new CpuUse(Double.NaN, 0.97, 2)).line())
                .contains("busy 97% of the time: the machine 97%").doesNotContain("NaN");
        // Idle cores left: the busiest stage, as before; unknown use says nothing either.
        assertThat(BottleneckAnalysis.judge(stages, waiting, new CpuUse(0.6, 0.7, 2)).state()).isEqualTo(Verdict.State.BUSIEST);
        assertThat(BottleneckAnalysis.judge(stages, waiting, CpuUse.UNKNOWN).state()).isEqualTo(Verdict.State.BUSIEST);
        // A saturated stage is still named first: its workers are the ones to look at.
        List<StageStats> saturated = List.of(stage("source", 0.1), stage("decode", 0.95));
        assertThat(BottleneckAnalysis.judge(saturated, waiting, new CpuUse(0.99, 0.99, 2)).state())
                .isEqualTo(Verdict.State.SATURATED);
        // The threshold is the one definition's: the idle rest could gain less than MIN_GAIN.
        assertThat(Bottleneck.cpuBound(1 / (1 + Bottleneck.MIN_GAIN))).isTrue();
        assertThat(Bottleneck.cpuBound(0.94)).isFalse();
        assertThat(Bottleneck.cpuBound(Double.NaN)).isFalse();
    }

    @Test
    void theStatesKeepTheirNamesInJson() {
        for (Verdict.State state : Verdict.State.values()) {
            assertThat(Verdict.State.of(state.code())).isEqualTo(state);
        }
        assertThat(Verdict.State.CPU_BOUND.code()).isEqualTo("cpu-bound");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Verdict.State.of("stuck"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stuck").hasMessageContaining("cpu-bound");
    }

    @Test
    void aProcessThatKeepsACoreBusyMeasuresItsShareOfItsCores() {
        long cpuStart = ProcessStats.cpuNanos();
        Assumptions.assumeTrue(cpuStart >= 0, "this JVM does not tell its process CPU time");
        CpuUse.Start start = CpuUse.start();
        // Burns 300 ms of the process's CPU (a condition on CPU time, not on the clock).
        while (ProcessStats.cpuNanos() - cpuStart < 300_000_000L) {
            Thread.onSpinWait();
        }
        CpuUse use = start.since();
        assertThat(use.cores()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(use.processShare()).isGreaterThan(0).isLessThanOrEqualTo(1);
        if (!Double.isNaN(use.machineShare())) {   // Linux: /proc/stat
            assertThat(use.machineShare()).isGreaterThan(0).isLessThanOrEqualTo(1);
        }
        assertThat(use.share()).isGreaterThanOrEqualTo(use.processShare());
    }

    private static SinkStats sink(double readiness, double waitShare) {
        return new SinkStats(8, 2, 100, readiness, 1000, waitShare, 0.5);
    }

    private static StageStats stage(String name, double busy) {
        return new StageStats(name, "map", 1, 100, 100, 0, 0, 1, busy, 1 - busy, 0, TaskTimeStats.EMPTY,
                new QueueStats(8, 1, 0.2, 0.1, 0.0));
    }
}
