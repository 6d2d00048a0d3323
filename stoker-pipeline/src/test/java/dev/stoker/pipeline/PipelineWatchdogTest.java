package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineWatchdogTest {
    static Integer waitForeverOn(Integer x) {
        if (x == 5) {
            Stalls.untilInterrupted();
        }
        return x;
    }

    @Test
    void aStallIsReportedWithTheStageAndTheStuckStack() throws Exception {
        CompletableFuture<StallReport> report = new CompletableFuture<>();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 100).boxed().toList())
                .map("fetch", x -> x)
                .map("decode", PipelineWatchdogTest::waitForeverOn, s -> s.ordered())
                .stallWatchdog(Duration.ofMillis(200), report::complete)
                .build()) {
            CompletableFuture.runAsync(() -> p.forEach(x -> { }));
            StallReport r = report.get(20, TimeUnit.SECONDS);
            assertThat(r.stages()).extracting(StallReport.StageHold::stage).contains("decode");
            StallReport.StageHold decode = r.stages().stream().filter(h -> h.stage().equals("decode")).findFirst().orElseThrow();
            assertThat(decode.inFlight()).isEqualTo(1);
            assertThat(decode.busyWorkerStacks()).singleElement().asString()
                    .contains("stoker-decode-0 on item #5")
                    .contains("PipelineWatchdogTest.waitForeverOn");
            assertThat(r.text()).contains("stage 'decode'").contains("nothing moved for");
            assertThat(p.stallReports()).hasSize(1);
        }
    }

    @Test
    void aWorkerWaitingDownstreamHasWhatItWaitsForInTheStallReportAskedAtReportTime() throws Exception {
        CompletableFuture<StallReport> report = new CompletableFuture<>();
        AtomicInteger asked = new AtomicInteger();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 100).boxed().toList())
                .map("collate", (Integer x) -> {
                    if (x == 3) {
                        // As a pool does: what it waits for is told when a report asks, as things stand then.
                        try (StageStats.DownstreamWait w = StageStats.waitingDownstream(
                                () -> "a buffer the consumer holds (asked " + asked.incrementAndGet() + " time)")) {
                            Stalls.untilInterrupted();
                        }
                    }
                    return x;
                })
                .stallWatchdog(Duration.ofMillis(200), report::complete)
                .build()) {
            CompletableFuture.runAsync(() -> p.forEach(x -> { }));
            StallReport r = report.get(20, TimeUnit.SECONDS);
            assertThat(r.stages()).singleElement().satisfies(collate -> {
                assertThat(collate.downstreamWaits()).containsExactly("a buffer the consumer holds (asked 1 time)");
                assertThat(collate.busyWorkerStacks()).singleElement().asString().contains("Stalls.untilInterrupted");
            });
            assertThat(r.text()).contains("stage 'collate'")
                    .contains("\n    waits for a buffer the consumer holds (asked 1 time)\n");
        }
    }

    @Test
    void aSlowConsumerIsNotAStall() {
        List<StallReport> reports = new ArrayList<>();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 10).boxed().toList())
                .map("a", x -> x)
                .stallWatchdog(Duration.ofMillis(50), reports::add)
                .build(Sink.buffer(2))) {
            var it = p.iterator();
            it.next();
            Await.until("sink full", () -> p.stats().sink().size() == 2);
            // The housekeeper checks every 10 ms; wait for several of its checks past the quiet period.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            Await.until("quiet period passed", () -> System.nanoTime() > until);
            assertThat(reports).isEmpty();
        }
    }

    @Test
    void aTaskTimeoutInterruptsTheTaskAndCountsTheItemAsFailed() {
        List<Integer> out = new ArrayList<>();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 20).boxed().toList())
                .map("decode", PipelineWatchdogTest::waitForeverOn, s -> s.concurrency(2).taskTimeout(Duration.ofMillis(100)))
                .build()) {
            p.forEach(out::add);
            assertThat(p.failures()).singleElement().satisfies(f -> {
                assertThat(f.reason()).isEqualTo("timeout");
                assertThat(f.item()).isEqualTo("5");
                assertThat(f.cause()).hasMessageContaining("exceeded its timeout of 100 ms");
            });
        }
        assertThat(out).hasSize(19).doesNotContain(5);
    }
}
