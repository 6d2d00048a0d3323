package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineOrderingTest {
    private static int jitter(int x) {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(0, 300_000));
        return x;
    }

    private static List<Integer> upTo(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /** Every item the pipeline delivers, in delivery order; closes the pipeline. */
    private static List<Integer> drain(Pipeline<Integer> pipeline) {
        List<Integer> out = new ArrayList<>();
        try (pipeline) {
            pipeline.forEach(out::add);
        }
        return out;
    }

    @Test
    void orderedStageEmitsInInputOrderUnderRandomTaskDelays() {
        List<Integer> input = upTo(2_000);
        List<Integer> out = drain(Pipeline.from(input)
                .map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(6).ordered())
                .build());
        assertThat(out).isEqualTo(input);
    }

    @Test
    void orderedFlatMapKeepsEachItemsOutputsTogetherAndInOrder() {
        List<Integer> out = drain(Pipeline.from(upTo(500))
                .flatMap("split", (Integer x) -> List.of(jitter(x * 3), x * 3 + 1, x * 3 + 2), s -> s.concurrency(4).ordered())
                .map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(3).ordered())
                .build());
        assertThat(out).isEqualTo(upTo(1_500));
    }

    @Test
    void completionOrderDeliversEveryItemOnce() {
        List<Integer> input = upTo(2_000);
        List<Integer> out = drain(Pipeline.from(input)
                .map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(6))
                .build());
        assertThat(out).containsExactlyInAnyOrderElementsOf(input);
    }

    @Test
    void orderedStageWithDropsAndFailuresKeepsTheRestInOrder() {
        List<Integer> input = upTo(1_000);
        List<Integer> out = new ArrayList<>();
        try (Pipeline<Integer> p = Pipeline.from(input)
                .map("jitter", (Integer x) -> {
                    jitter(x);
                    if (x % 7 == 0) {
                        throw new IllegalStateException("bad " + x);
                    }
                    return x % 5 == 0 ? null : x;
                }, s -> s.concurrency(5).ordered().failureBudget(FailureBudget.count(1_000)))
                .build()) {
            p.forEach(out::add);
            assertThat(p.failures()).hasSize(143);
        }
        assertThat(out).isEqualTo(input.stream().filter(x -> x % 7 != 0 && x % 5 != 0).toList());
    }
}
