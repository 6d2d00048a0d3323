package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineCancellationTest {
    private static final List<Integer> ITEMS = IntStream.range(0, 10_000).boxed().toList();

    private static List<Thread> stokerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("stoker-") && t.isAlive()).toList();
    }

    /** A stage function that counts each call in {@code entered}, then blocks until its worker is interrupted. */
    private static Function<Integer, Integer> blockedUntilInterrupted(AtomicInteger entered) {
        return x -> {
            entered.incrementAndGet();
            Stalls.untilInterrupted();
            return x;
        };
    }

    @Test
    void closeStopsWorkersBlockedInsideStageFunctions() {
        AtomicInteger entered = new AtomicInteger();
        Pipeline<Integer> p = Pipeline.from(ITEMS)
                .map("stuck", blockedUntilInterrupted(entered), s -> s.concurrency(4))
                .map("after", x -> x, s -> s.concurrency(2).virtualThreads())
                .build();
        Await.until("all four workers blocked", () -> entered.get() == 4);
        assertTimeoutPreemptively(Duration.ofSeconds(10), p::close);
        assertThat(p.liveThreads()).isEmpty();
        assertThat(p.failures()).isEmpty();
    }

    @Test
    void leavingTryWithResourcesEarlyStopsEverything() {
        try (Pipeline<Integer> p = Pipeline.from(ITEMS)
                .map("a", x -> x, s -> s.concurrency(3))
                .flatMap("b", (Integer x) -> List.of(x, x), s -> s.concurrency(2).ordered())
                .batch(8)
                .map("c", b -> b.size())
                .build()) {
            Iterator<Integer> it = p.iterator();
            it.next();
            it.next();
        }
        Await.until("no stoker thread alive", () -> stokerThreads().isEmpty(), Duration.ofSeconds(10));
    }

    @Test
    void anExceptionInTheConsumerStopsEverything() {
        Pipeline<Integer>[] holder = new Pipeline[1];
        assertThatThrownBy(() -> {
            try (Pipeline<Integer> p = Pipeline.from(ITEMS).map("a", x -> x, s -> s.concurrency(2)).build()) {
                holder[0] = p;
                for (Integer x : p) {
                    if (x > 10) {
                        throw new IllegalArgumentException("training step blew up");
                    }
                }
            }
        }).hasMessage("training step blew up");
        assertThat(holder[0].liveThreads()).isEmpty();
    }

    @Test
    void closeInterruptsTasksRunningOnASharedPool() {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        AtomicInteger entered = new AtomicInteger();
        try {
            Pipeline<Integer> p = Pipeline.from(ITEMS)
                    .map("stuck", blockedUntilInterrupted(entered), s -> s.concurrency(3).executor(pool))
                    .build();
            Await.until("three tasks blocked", () -> entered.get() == 3);
            assertTimeoutPreemptively(Duration.ofSeconds(10), p::close);
            assertThat(p.liveThreads()).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closeWhileTheConsumerWaitsWakesIt() throws Exception {
        Pipeline<Integer> p = Pipeline.from(ITEMS).map("stuck", blockedUntilInterrupted(new AtomicInteger())).build();
        AtomicInteger outcome = new AtomicInteger();
        Thread consumer = Thread.ofPlatform().start(() -> {
            try {
                p.iterator().hasNext();
            } catch (IllegalStateException e) {
                outcome.set(1);
            }
        });
        Await.until("consumer waiting", () -> consumer.getState() == Thread.State.WAITING);
        p.close();
        consumer.join(10_000);
        assertThat(outcome.get()).isEqualTo(1);
        assertThat(p.liveThreads()).isEmpty();
    }

    @Test
    void itemsHeldByAClosedPipelineAreReleased() {
        AtomicInteger open = new AtomicInteger();
        final class Resource implements AutoCloseable {
            Resource() {
                open.incrementAndGet();
            }

            @Override
            public void close() {
                open.decrementAndGet();
            }
        }
        try (Pipeline<Resource> p = Pipeline.from(ITEMS)
                .map("alloc", (Integer x) -> new Resource(), s -> s.concurrency(2))
                .map("pass", r -> r, s -> s.concurrency(2).ordered())
                .build(Sink.buffer(4))) {
            Iterator<Resource> it = p.iterator();
            it.next().close();
            Await.until("pipeline full", () -> p.stats().sink().size() == 4);
        }
        assertThat(open.get()).isZero();
    }
}
