package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PipelineBackpressureTest {

    /** An endless source that counts how many items the pipeline pulled. */
    private static Iterator<Integer> counting(AtomicInteger pulled) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() { return true; }

            @Override
            public Integer next() { return pulled.getAndIncrement(); }
        };
    }

    private static boolean allBlocked(Pipeline<?> p) {
        return p.liveThreads().stream()
                .filter(t -> !t.getName().equals("stoker-housekeeper"))
                .allMatch(t -> t.getState() == Thread.State.WAITING);
    }

    /** Waits until every thread is blocked and the source count has not moved over many checks. */
    private static int awaitRest(Pipeline<?> p, AtomicInteger pulled) {
        int[] last = {-1};
        int[] stableChecks = {0};
        Await.until("the pipeline to come to rest", () -> {
            int now = pulled.get();
            if (now == last[0] && allBlocked(p)) {
                stableChecks[0]++;
            } else {
                stableChecks[0] = 0;
                last[0] = now;
            }
            return stableChecks[0] >= 50;
        });
        return last[0];
    }

    @Test
    void aStoppedConsumerStopsTheSourceWithinTheBuffersCapacity() {
        AtomicInteger pulled = new AtomicInteger();
        try (Pipeline<List<Integer>> p = Pipeline.from(counting(pulled))
                .map("a", x -> x, s -> s.concurrency(2).queueCapacity(3))
                .flatMap("b", (Integer x) -> List.of(x, x), s -> s.concurrency(1).queueCapacity(4))
                .map("c", x -> x, s -> s.concurrency(3).queueCapacity(5).ordered())
                .batch(4)
                .build(Sink.buffer(2))) {
            Iterator<List<Integer>> it = p.iterator();
            for (int i = 0; i < 3; i++) {
                it.next();
            }
            int atRest = awaitRest(p, pulled);
            int orderedWindow = Math.max(4 * 3, 3 + 5);
            int bound = 3 * 4 /* consumed */ + 2 * 4 /* sink */ + (2 + 4 + 3 + 1)
                    + (3 + 2) + (4 + 1) + (5 + orderedWindow) + 1;
            assertThat(atRest).isLessThanOrEqualTo(bound);

            it.next();
            Await.until("the source moves again after the consumer takes", () -> pulled.get() > atRest);
        }
    }

    @Test
    void consumingEverythingAfterAStallLosesNothing() {
        List<Integer> input = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            input.add(i);
        }
        try (Pipeline<Integer> p = Pipeline.from(input)
                .map("a", x -> x, s -> s.concurrency(2).queueCapacity(2))
                .build(Sink.buffer(1))) {
            Iterator<Integer> it = p.iterator();
            it.next();
            Await.until("pipeline blocked on the consumer", () -> allBlocked(p));
            List<Integer> rest = new ArrayList<>();
            it.forEachRemaining(rest::add);
            assertThat(rest).hasSize(299);
        }
    }
}
