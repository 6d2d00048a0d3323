package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Once the consumer has seen the end of the stream, the stats are the run's and stay so: measured on, the quiet time
 * after the run counted as elapsed and as idle, the rate decayed and a saturated stage's verdict turned to 'source
 * starved'.
 */
class PipelineStatsAfterEndTest {
    private static final EpochSource<Integer> THREE_EPOCHS =
            e -> e < 3 ? IntStream.range(e * 1000, e * 1000 + 20).boxed().toList() : null;

    private static Integer slow(Integer x) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        return x;
    }

    /** Lets the housekeeper (every 10 ms) sample many times; what is asserted after it is equality, not a duration. */
    private static void quietWhile() {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        Await.until("the housekeeper ticked on", () -> System.nanoTime() > until);
    }

    private static void assertSame(PipelineStats later, PipelineStats atEnd) {
        assertThat(later.verdict().line()).isEqualTo(atEnd.verdict().line());
        assertThat(later.elapsedMillis()).isEqualTo(atEnd.elapsedMillis());
        assertThat(later.outputsPerSecond()).isEqualTo(atEnd.outputsPerSecond());
        assertThat(later.stages()).isEqualTo(atEnd.stages());
        assertThat(later.sink()).isEqualTo(atEnd.sink());
        assertThat(later.toTable()).isEqualTo(atEnd.toTable());
        assertThat(later).isEqualTo(atEnd);
    }

    @Test
    void statsAfterTheEndAreTheSnapshotAtTheEndAndTheWatchdogStaysQuiet() {
        List<StallReport> stalls = new ArrayList<>();
        try (Pipeline<List<Integer>> p = Pipeline.from(IntStream.range(0, 60).boxed().toList())
                .map("decode", PipelineStatsAfterEndTest::slow, s -> s.concurrency(1))
                .batch(4)
                .stallWatchdog(Duration.ofMillis(20), stalls::add)
                .build(Sink.buffer(2))) {
            int batches = 0;
            for (List<Integer> b : p) {
                batches++;
            }
            PipelineStats atEnd = p.stats();
            assertThat(batches).isEqualTo(15);
            assertThat(atEnd.sink().delivered()).isEqualTo(15);

            quietWhile();
            assertSame(p.stats(), atEnd);
            assertThat(stalls).isEmpty();

            p.close();
            assertSame(p.stats(), atEnd);
        }
    }

    @Test
    void anEpochEndIsNotTheEndOnlyTheLastEpochFreezesTheStats() {
        try (Pipeline<Integer> p = Pipeline.fromEpochs(THREE_EPOCHS).map("decode", x -> x).build()) {
            p.nextEpoch().forEach(x -> { });
            assertThat(p.endOfStream()).isFalse();
            PipelineStats atEpochEnd = p.stats();
            Await.until("the stats count on between epochs", () -> p.stats().elapsedMillis() > atEpochEnd.elapsedMillis());

            while (p.hasMoreEpochs()) {
                p.nextEpoch().forEach(x -> { });
            }
            assertThat(p.endOfStream()).isTrue();
            PipelineStats atEnd = p.stats();
            assertThat(atEnd.sink().delivered()).isEqualTo(60);
            assertThat(atEnd.epoch()).isEqualTo(2);

            quietWhile();
            assertSame(p.stats(), atEnd);
        }
    }

    @Test
    void aReconfigurationAfterTheEndIsListedAndTheMeasuredFiguresStay() {
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 50).boxed().toList())
                .map("decode", x -> x, s -> s.concurrency(2))
                .build(Sink.buffer(4))) {
            p.forEach(x -> { });
            PipelineStats atEnd = p.stats();

            p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(8), "after the end");
            PipelineStats later = p.stats();
            assertThat(p.config().sinkCapacity()).isEqualTo(8);
            assertThat(later.reconfigurations()).singleElement()
                    .satisfies(r -> assertThat(r.reason()).isEqualTo("after the end"));
            assertThat(later.elapsedMillis()).isEqualTo(atEnd.elapsedMillis());
            assertThat(later.outputsPerSecond()).isEqualTo(atEnd.outputsPerSecond());
            assertThat(later.stages()).isEqualTo(atEnd.stages());
            assertThat(later.sink()).isEqualTo(atEnd.sink());
            assertThat(later.verdict()).isEqualTo(atEnd.verdict());
        }
    }
}
