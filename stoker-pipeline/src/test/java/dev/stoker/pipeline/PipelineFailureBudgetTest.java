package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineFailureBudgetTest {
    private static final List<Integer> HUNDRED = IntStream.range(0, 100).boxed().toList();

    static final class BadItem extends RuntimeException implements Failure.Reasoned {
        BadItem(int x) {
            super("item " + x + " is bad");
        }

        @Override
        public String failureReason() {
            return "bad-item";
        }
    }

    /** A stage function that passes items through and throws {@link BadItem} for those {@code bad} picks. */
    private static Function<Integer, Integer> badWhen(IntPredicate bad) {
        return x -> {
            if (bad.test(x)) {
                throw new BadItem(x);
            }
            return x;
        };
    }

    @Test
    void failuresWithinBudgetAreSkippedCountedAndReportedWithStageItemAndCause() {
        List<Integer> out = new ArrayList<>();
        try (Pipeline<Integer> p = Pipeline.from(HUNDRED)
                .map("parse", x -> x)
                .map("decode", badWhen(x -> x % 10 == 3),
                        s -> s.concurrency(3).failureBudget(FailureBudget.count(10)).describeItems(x -> "video-" + x + ".mp4"))
                .build()) {
            p.forEach(out::add);
            assertThat(p.failures()).hasSize(10).allSatisfy(f -> {
                assertThat(f.stage()).isEqualTo("decode");
                assertThat(f.item()).matches("video-\\d*3\\.mp4");
                assertThat(f.reason()).isEqualTo("bad-item");
                assertThat(f.cause()).isInstanceOf(BadItem.class);
            });
            PipelineStats stats = p.stats();
            assertThat(stats.stage("decode").failures()).isEqualTo(10);
            assertThat(stats.failuresByReason()).containsEntry("decode: bad-item", 10L);
            assertThat(stats.toTable()).contains("failures: 10");
        }
        assertThat(out).hasSize(90).doesNotContain(3, 13, 93);
    }

    @Test
    void exceedingAStageBudgetEndsIterationWithOneExceptionNamingEveryFailingStage() {
        Pipeline<Integer> p = Pipeline.from(HUNDRED)
                .map("fetch", (Integer x) -> {
                    if (x == 1) {
                        throw new IllegalStateException("fetch broke on " + x);
                    }
                    return x;
                }, s -> s.failureBudget(FailureBudget.count(5)))
                .map("decode", badWhen(x -> x % 4 == 0), s -> s.failureBudget(FailureBudget.count(3)))
                .build();
        try (p) {
            assertThatThrownBy(() -> p.forEach(x -> { }))
                    .isInstanceOfSatisfying(FailureBudgetExceededException.class, e -> {
                        assertThat(e.exceeded()).isEqualTo(new FailureBudgetExceededException.Exceeded("decode", 4,
                                e.exceeded().items(), FailureBudget.count(3)));
                        assertThat(e.failingStages()).containsExactly("decode", "fetch");
                        assertThat(e.getMessage())
                                .contains("failure budget exceeded in stage 'decode'")
                                .contains("4 of")
                                .contains("fetch (1 failed)")
                                .contains("fetch broke on 1")
                                .contains("item 0 is bad");
                        assertThat(e.firstFailures()).extracting(Failure::stage).contains("decode", "fetch");
                        assertThat(e.getSuppressed()).isNotEmpty();
                    });
        }
        assertThat(p.liveThreads()).isEmpty();
    }

    @Test
    void aRateBudgetAppliesAfterWarmUp() {
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 1_000).boxed().toList())
                .map("flaky", badWhen(x -> x < 3 || x % 2 == 0), s -> s.failureBudget(FailureBudget.rate(0.2, 50)))
                .build()) {
            assertThatThrownBy(() -> p.forEach(x -> { }))
                    .isInstanceOf(PipelineFailedException.class)
                    .hasMessageContaining("at most 20% after 50 items");
            assertThat(p.stats().stage("flaky").itemsIn()).isLessThan(200);
        }
    }

    @Test
    void thePipelineBudgetCountsFailuresOfAllStages() {
        try (Pipeline<Integer> p = Pipeline.from(HUNDRED)
                .map("a", badWhen(x -> x % 10 == 0), s -> s.failureBudget(FailureBudget.count(100)))
                .map("b", badWhen(x -> x % 10 == 5), s -> s.failureBudget(FailureBudget.count(100)))
                .failureBudget(FailureBudget.count(12))
                .build()) {
            assertThatThrownBy(() -> p.forEach(x -> { }))
                    .isInstanceOfSatisfying(FailureBudgetExceededException.class, e -> {
                        assertThat(e.exceeded()).isEqualTo(new FailureBudgetExceededException.Exceeded("pipeline", 13,
                                e.exceeded().items(), FailureBudget.count(12)));
                    })
                    .hasMessageContaining("failure budget exceeded in the pipeline: 13 of");
        }
    }

    @Test
    void aFailingSourceEndsIterationNamingTheSource() {
        Iterator<Integer> broken = new Iterator<>() {
            int n;

            @Override
            public boolean hasNext() { return true; }

            @Override
            public Integer next() {
                if (n == 10) {
                    throw new IllegalStateException("disk gone");
                }
                return n++;
            }
        };
        try (Pipeline<Integer> p = Pipeline.from(broken).map("a", x -> x).build()) {
            assertThatThrownBy(() -> p.forEach(x -> { }))
                    .isInstanceOfSatisfying(PipelineFailedException.class, e -> {
                        assertThat(e.failingStages()).containsExactly("source");
                        assertThat(e).hasMessageContaining("disk gone");
                    });
        }
    }
}
