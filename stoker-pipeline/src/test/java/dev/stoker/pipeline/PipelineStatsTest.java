package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineStatsTest {
    /** Simulated work of {@code ms}: parkNanos may return early (a pending unpark permit), so wait out the deadline. */
    private static <T> T sleepMillis(T x, double ms) {
        long until = System.nanoTime() + (long) (ms * 1_000_000);
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
        return x;
    }

    @Test
    void aSlowStageIsNamedSaturatedAndItsUpstreamBackPressured() throws Exception {
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 300).boxed().toList())
                .map("fetch", x -> x, s -> s.concurrency(2))
                .map("decode", x -> sleepMillis(x, 2), s -> s.concurrency(1))
                .map("collate", x -> x)
                .build()) {
            p.forEach(x -> { });
            PipelineStats stats = p.stats();
            StageStats decode = stats.stage("decode");
            assertThat(decode.busyFraction()).isGreaterThan(0.7);
            assertThat(decode.taskTime().p50Micros()).isGreaterThanOrEqualTo(2_000);
            assertThat(decode.taskTime().count()).isEqualTo(300);
            assertThat(decode.inputQueue().fullFraction()).isGreaterThan(0.5);
            assertThat(stats.stage("fetch").backPressuredFraction()).isGreaterThan(0.5);
            assertThat(stats.verdict().bottleneck()).isEqualTo("decode");
            assertThat(stats.verdict().state()).isEqualTo(Verdict.State.SATURATED);
            assertThat(stats.verdict().line()).startsWith("bottleneck: decode (saturated: busy");
            assertThat(decode.itemsIn()).isEqualTo(300);
            assertThat(decode.itemsOut()).isEqualTo(300);

            JsonNode json = new ObjectMapper().readTree(stats.toJson());
            assertThat(json.get("stages")).hasSize(4);
            assertThat(json.get("verdict").get("bottleneck").asText()).isEqualTo("decode");
            assertThat(json.get("sink").has("dataReadiness")).isTrue();
            assertThat(stats.toTable()).contains("decode").contains("bottleneck: decode");
        }
    }

    @Test
    void aSlowConsumerIsNamedAndDataIsReady() {
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 200).boxed().toList())
                .map("decode", x -> x, s -> s.concurrency(2))
                .build(Sink.buffer(4))) {
            for (Integer x : p) {
                sleepMillis(x, 1);
            }
            PipelineStats stats = p.stats();
            assertThat(stats.sink().dataReadiness()).isGreaterThan(0.9);
            assertThat(stats.sink().delivered()).isEqualTo(200);
            assertThat(stats.verdict().bottleneck()).isEqualTo("consumer");
        }
    }

    @Test
    void aStageWaitingForBuffersTheConsumerHoldsIsBackPressuredAndTheConsumerIsNamed() throws Exception {
        // The PyTorch bridge's shape: a serve thread takes each batch at once, and the training loop holds its buffer
        // (a shared-memory slot) until its step is done; collate waits for a free one. Counted as busy, that wait
        // named collate the bottleneck.
        Semaphore buffers = new Semaphore(2);
        ScheduledExecutorService trainingLoop = Executors.newSingleThreadScheduledExecutor();
        // 600 items held 5 ms each by 2 buffers: 1.5 s, 150 samples of the 10 ms clock, so that a loaded machine's
        // hiccups do not move the shares across the bounds below.
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 600).boxed().toList())
                .map("decode", x -> x, s -> s.concurrency(2))
                .map("collate", x -> {
                    try (StageStats.DownstreamWait w = StageStats.waitingDownstream()) {
                        buffers.acquireUninterruptibly();
                    }
                    return x;
                })
                .build()) {
            for (Integer x : p) {
                trainingLoop.schedule(() -> buffers.release(), 5, TimeUnit.MILLISECONDS);
            }
            PipelineStats stats = p.stats();
            StageStats collate = stats.stage("collate");
            assertThat(collate.backPressuredFraction()).isGreaterThan(0.5);
            assertThat(collate.busyFraction()).isLessThan(0.3);
            assertThat(stats.verdict().state()).isEqualTo(Verdict.State.CONSUMER_BOUND);
            assertThat(stats.verdict().line()).startsWith("bottleneck: consumer (collate, the last stage, waited for room");
        } finally {
            trainingLoop.shutdownNow();
        }
    }

    @Test
    void aSlowSourceStarvesThePipeline() {
        Iterable<Integer> slowSource = () -> IntStream.range(0, 200).mapToObj(x -> sleepMillis(x, 1)).iterator();
        // Room for every item after the source: on a loaded machine the decode threads or the consumer may be off
        // the CPU for several milliseconds, and small queues would then hold the source back (measured 55% busy
        // once at load 8), which is not what this test is about.
        try (Pipeline<Integer> p = Pipeline.from(slowSource)
                .map("decode", x -> x, s -> s.concurrency(2).queueCapacity(256))
                .build(Sink.buffer(256))) {
            p.forEach(x -> { });
            PipelineStats stats = p.stats();
            assertThat(stats.stage("source").busyFraction()).isGreaterThan(0.7);
            assertThat(stats.stage("decode").idleFraction()).isGreaterThan(0.7);
            assertThat(stats.sink().dataReadiness()).isLessThan(0.5);
            assertThat(stats.verdict().bottleneck()).isEqualTo("source");
        }
    }
}
