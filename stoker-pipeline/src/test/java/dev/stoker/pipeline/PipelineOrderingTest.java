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

    @Test
    void orderedStageEmitsInInputOrderUnderRandomTaskDelays() {
        List<Integer> input = IntStream.range(0, 2_000).boxed().toList();

        List<Integer> out = drain(Pipeline.from(input)
                .map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(6).ordered()));

        assertThat(out).isEqualTo(input);
    }

    @Test
    void orderedFlatMapKeepsEachItemsOutputsTogetherAndInOrder() {
        List<Integer> input = IntStream.range(0, 500).boxed().toList();

        List<Integer> out = drain(Pipeline.from(input)
                .flatMap("split", (Integer x) -> List.of(jitter(x * 3), x * 3 + 1, x * 3 + 2),
                        s -> s.concurrency(4).ordered())
                .map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(3).ordered()));

        assertThat(out).isEqualTo(IntStream.range(0, 1_500).boxed().toList());
    }

    @Test
    void completionOrderDeliversEveryItemOnce() {
        List<Integer> input = IntStream.range(0, 2_000).boxed().toList();

        List<Integer> out = drain(Pipeline.from(input).map("jitter", PipelineOrderingTest::jitter, s -> s.concurrency(6)));

        assertThat(out).containsExactlyInAnyOrderElementsOf(input);
    }

    @Test
    void orderedStageWithDropsAndFailuresKeepsTheRestInOrder() {
        List<Integer> input = IntStream.range(0, 1_000).boxed().toList();
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

    /** Every item {@code builder}'s pipeline delivers, in delivery order; the pipeline is closed after. */
    private static List<Integer> drain(PipelineBuilder<Integer> builder) {
        List<Integer> out = new ArrayList<>();
        try (Pipeline<Integer> p = builder.build()) {
            p.forEach(out::add);
        }
        return out;
    }
}
