package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PipelineConcurrencyCapTest {

    /**
     * Tasks meet at a barrier of {@code cap} parties: the stage must run exactly {@code cap} at once, or
     * the barrier never trips (too few) or the observed maximum exceeds the cap (too many).
     */
    private static int observedMaxInFlight(int cap, Consumer<StageOptions> options) {
        AtomicInteger current = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        CyclicBarrier barrier = new CyclicBarrier(cap);
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, cap * 20).boxed().toList())
                .map("work", (Integer x) -> {
                    int now = current.incrementAndGet();
                    max.accumulateAndGet(now, Math::max);
                    try {
                        barrier.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        current.decrementAndGet();
                    }
                    return x;
                }, options.andThen(s -> s.concurrency(cap)))
                .build()) {
            int n = 0;
            for (Integer ignored : p) {
                n++;
            }
            assertThat(n).isEqualTo(cap * 20);
            assertThat(p.failures()).isEmpty();
        }
        return max.get();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void platformWorkersRunExactlyTheConfiguredConcurrency(int cap) {
        assertThat(observedMaxInFlight(cap, s -> { })).isEqualTo(cap);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void virtualWorkersRunExactlyTheConfiguredConcurrency(int cap) {
        assertThat(observedMaxInFlight(cap, StageOptions::virtualThreads)).isEqualTo(cap);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aSharedPoolStillCapsTheStage(int cap) {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            assertThat(observedMaxInFlight(cap, s -> s.executor(pool))).isEqualTo(cap);
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void orderedStagesAlsoRespectTheCap(int cap) {
        assertThat(observedMaxInFlight(cap, StageOptions::ordered)).isEqualTo(cap);
    }
}
