package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A window's stats from two snapshots of one pipeline: a decode stage saturated while it filled a cache (1 s, the
 * consumer waiting) and then ahead of a slow consumer (3 s) is saturated since the start but consumer-bound over the
 * window.
 */
class PipelineStatsSinceTest {
    private static StageStats decode(long items, double busy, double blocked) {
        return new StageStats("decode", "map", 2, items, items, 0, 0, 1, busy, 1 - busy - blocked, blocked,
                TaskTimeStats.EMPTY, new QueueStats(4, 2, 0.5, 0.1, 0.2));
    }

    private static PipelineStats stats(long millis, StageStats decode, long delivered, double waitedMillis,
                                       long failures) {
        List<StageStats> stages = List.of(
                new StageStats("source", "source", 1, delivered, delivered, 0, 0, 0, 0, 0, 1, TaskTimeStats.EMPTY,
                        new QueueStats(0, 0, 0, 0, 0)), decode);
        SinkStats sink = new SinkStats(4, 4, delivered, 0.5, waitedMillis, 0, 0.5);
        return new PipelineStats(millis, 0, delivered * 1000.0 / millis, stages, sink, failures,
                failures == 0 ? Map.of() : Map.of("decode: corrupt", failures),
                BottleneckAnalysis.judge(stages, sink), List.of());
    }

    @Test
    void aPhaseIsJudgedOnItsOwnTime() {
        // 1 s filling a cache: decode busy 95%, the consumer waiting 900 ms of it.
        PipelineStats filled = stats(1_000, decode(20, 0.95, 0.0), 20, 900, 1);
        // 3 s more with a slow consumer: decode busy 20% and blocked 70% of them, the consumer waiting 30 ms.
        double busy = (0.95 * 1_000 + 0.20 * 3_000) / 4_000;
        double blocked = (0.0 * 1_000 + 0.70 * 3_000) / 4_000;
        PipelineStats now = stats(4_000, decode(50, busy, blocked), 50, 930, 3);

        PipelineStats window = now.since(filled);

        StageStats d = window.stage("decode");
        assertThat(d.busyFraction()).isCloseTo(0.20, within(1e-9));
        assertThat(d.backPressuredFraction()).isCloseTo(0.70, within(1e-9));
        assertThat(d.idleFraction()).isCloseTo(0.10, within(1e-9));
        assertThat(d.itemsOut()).isEqualTo(30);
        assertThat(window.sink().delivered()).isEqualTo(30);
        assertThat(window.sink().consumerWaitMillis()).isCloseTo(30, within(1e-9));
        assertThat(window.sink().consumerWaitShare()).isCloseTo(0.01, within(1e-9));
        assertThat(window.outputsPerSecond()).isCloseTo(10, within(1e-9));
        assertThat(window.failures()).isEqualTo(2);
        assertThat(window.failuresByReason()).containsExactly(Map.entry("decode: corrupt", 2L));
        assertThat(window.verdict().state()).isEqualTo(Verdict.State.CONSUMER_BOUND);
    }

    @Test
    void withoutAnOlderSnapshotItIsTheSnapshot() {
        PipelineStats now = stats(4_000, decode(50, 0.5, 0.2), 50, 930, 0);
        assertThat(now.since(null)).isSameAs(now);
        assertThat(now.since(now)).isSameAs(now);
    }
}
