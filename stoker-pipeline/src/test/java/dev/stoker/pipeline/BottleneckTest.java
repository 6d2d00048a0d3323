package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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
        assertThat(consumer.state()).isEqualTo("consumer-bound");
        assertThat(consumer.line()).contains("waited for data 2% of its time");
        // Ready on 95% of the calls, but the few waits were long: 30% of its time. The saturated stage is named.
        Verdict stageBound = BottleneckAnalysis.judge(List.of(stage("source", 0.1), decode), sink(0.95, 0.30));
        assertThat(stageBound.state()).isEqualTo("saturated");
        assertThat(stageBound.bottleneck()).isEqualTo("decode");
    }

    private static SinkStats sink(double readiness, double waitShare) {
        return new SinkStats(8, 2, 100, readiness, 1000, waitShare, 0.5);
    }

    private static StageStats stage(String name, double busy) {
        return new StageStats(name, "map", 1, 100, 100, 0, 0, 1, busy, 1 - busy, 0, TaskTimeStats.EMPTY,
                new QueueStats(8, 1, 0.2, 0.1, 0.0));
    }
}
