package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pipeline.reconfigure: concurrency and queue capacities change while items flow, losing and repeating none. */
@Timeout(60)
class PipelineReconfigureTest {

    /** Reconfigures {@code stage} (and the sink) at random, every ~1 ms, until stopped. */
    private static Thread churn(Pipeline<?> p, String stage, int maxConcurrency, AtomicBoolean stop, long seed) {
        Thread t = Thread.ofPlatform().name("churn").start(() -> {
            SplittableRandom random = new SplittableRandom(seed);
            while (!stop.get()) {
                int c = 1 + random.nextInt(maxConcurrency);
                Integer q = random.nextBoolean() ? 1 + random.nextInt(16) : null;
                try {
                    p.reconfigure(stage, new StageConfig(c, q, null, null, null, null));
                    if (random.nextInt(4) == 0) {
                        p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(1 + random.nextInt(8)));
                    }
                } catch (IllegalStateException closed) {
                    return;
                }
                LockSupport.parkNanos(random.nextLong(200_000, 2_000_000));
            }
        });
        return t;
    }

    private static int jitter(int x) {
        if (x % 7 == 0) {
            LockSupport.parkNanos(50_000 + (x % 13) * 20_000L);
        }
        return x;
    }

    @Test
    void everyItemArrivesExactlyOnceWhileWorkersComeAndGo() throws Exception {
        int n = 30_000;
        int epochs = 3;
        BitSet[] seen = new BitSet[epochs];
        for (int e = 0; e < epochs; e++) {
            seen[e] = new BitSet(n);
        }
        AtomicBoolean stop = new AtomicBoolean();
        long delivered = 0;
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, n).boxed().toList())
                .map("work", PipelineReconfigureTest::jitter, s -> s.concurrency(3))
                .map("after", (Integer x) -> x, s -> s.concurrency(2))
                .epochs(epochs)
                .build()) {
            Thread churn = churn(p, "work", 8, stop, 1);
            Thread churn2 = churn(p, "after", 4, stop, 2);
            for (int e = 0; e < epochs; e++) {
                for (Integer x : p.nextEpoch()) {
                    assertThat(seen[e].get(x)).as("item %d of epoch %d twice", x, e).isFalse();
                    seen[e].set(x);
                    delivered++;
                }
            }
            stop.set(true);
            churn.join();
            churn2.join();
            assertThat(p.failures()).isEmpty();
        }
        for (int e = 0; e < epochs; e++) {
            assertThat(seen[e].cardinality()).as("items of epoch %d", e).isEqualTo(n);
        }
        assertThat(delivered).isEqualTo((long) n * epochs);
    }

    /**
     * 20,000 items through an ordered stage {@code work} that {@link #churn} reconfigures meanwhile: asserts they
     * arrive in input order, all of them. Returns the changes made.
     */
    private static List<Reconfiguration> assertInputOrderWhileChurning(Consumer<StageOptions> options, long seed)
            throws InterruptedException {
        int n = 20_000;
        AtomicBoolean stop = new AtomicBoolean();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, n).boxed().toList())
                .map("work", PipelineReconfigureTest::jitter, options)
                .build()) {
            Thread churn = churn(p, "work", 8, stop, seed);
            int expected = 0;
            for (Integer x : p) {
                assertThat(x).isEqualTo(expected++);
            }
            stop.set(true);
            churn.join();
            assertThat(expected).isEqualTo(n);
            return p.stats().reconfigurations();
        }
    }

    /** Counts the tasks of a stage in flight: now, the most at once, and how many have started. */
    private record InFlight(AtomicInteger current, AtomicInteger max, AtomicLong started) {
        InFlight() {
            this(new AtomicInteger(), new AtomicInteger(), new AtomicLong());
        }

        /** A million items through a stage {@code work} whose tasks take {@code taskNanos} each, counted here. */
        Pipeline<Integer> pipeline(long taskNanos, Consumer<StageOptions> options) {
            return Pipeline.from(IntStream.range(0, 1_000_000).boxed().iterator())
                    .map("work", (Integer x) -> {
                        max.accumulateAndGet(current.incrementAndGet(), Math::max);
                        started.incrementAndGet();
                        LockSupport.parkNanos(taskNanos);
                        current.decrementAndGet();
                        return x;
                    }, options)
                    .build(Sink.buffer(64));
        }

        /** Waits until {@code n} tasks have been in flight at once, for 10 s at most. */
        void awaitMax(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (max.get() < n && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }
    }

    /** Takes {@code p}'s items on a thread of its own until the test closes {@code p}. */
    private static Thread drainUntilClosed(Pipeline<Integer> p) {
        return Thread.ofPlatform().start(() -> {
            try {
                for (Integer ignored : p) {
                    // drain
                }
            } catch (IllegalStateException closed) {
                // the test closes the pipeline
            }
        });
    }

    @Test
    void anOrderedStageKeepsInputOrderWhileItsConcurrencyChanges() throws Exception {
        assertInputOrderWhileChurning(s -> s.concurrency(4).ordered(), 3);
    }

    @Test
    void theConcurrencyCapHoldsAfterEveryChange() throws Exception {
        InFlight inFlight = new InFlight();
        AtomicInteger max = inFlight.max();
        try (Pipeline<Integer> p = inFlight.pipeline(1_000_000, s -> s.concurrency(6).queueCapacity(32))) {
            Thread consumer = drainUntilClosed(p);
            for (int target : new int[] {6, 2, 5, 1, 8, 3}) {
                p.reconfigure("work", StageConfig.EMPTY.withConcurrency(target));
                awaitLiveWorkers(p, "work", target);
                max.set(inFlight.current().get());
                // Many tasks started since: the workers had every chance to overrun the cap (counted, not timed).
                long before = inFlight.started().get();
                Await.until("50 tasks at concurrency " + target, () -> inFlight.started().get() >= before + 50);
                assertThat(max.get()).as("tasks in flight after setting concurrency %d", target).isLessThanOrEqualTo(target);
                assertThat(max.get()).as("tasks in flight after setting concurrency %d", target).isGreaterThanOrEqualTo(Math.min(target, 1));
                assertThat(p.stats().stage("work").concurrency()).isEqualTo(target);
                assertThat(p.config().stage("work").concurrency()).isEqualTo(target);
            }
            p.close();
            consumer.join(5_000);
            assertThat(p.liveThreads()).isEmpty();
        }
    }

    @Test
    void raisingConcurrencyReachesTheNewCap() throws Exception {
        InFlight inFlight = new InFlight();
        try (Pipeline<Integer> p = inFlight.pipeline(2_000_000, s -> s.concurrency(1).queueCapacity(16))) {
            Thread consumer = drainUntilClosed(p);
            p.reconfigure("work", StageConfig.EMPTY.withConcurrency(5));
            inFlight.awaitMax(5);
            assertThat(inFlight.max().get()).isEqualTo(5);
            p.close();
            consumer.join(5_000);
        }
    }

    @Test
    void idleWorkersRetireWithoutInput() throws Exception {
        Semaphore gate = new Semaphore(0);
        AtomicInteger produced = new AtomicInteger();
        try (Pipeline<Integer> p = Pipeline.from(() -> {
                    gate.acquireUninterruptibly();
                    int i = produced.getAndIncrement();
                    return i < 10 ? i : null;
                })
                .map("work", (Integer x) -> x, s -> s.concurrency(6))
                .build()) {
            awaitLiveWorkers(p, "work", 6);
            p.reconfigure("work", StageConfig.EMPTY.withConcurrency(2));
            awaitLiveWorkers(p, "work", 2);
            gate.release(11);
            List<Integer> got = new ArrayList<>();
            p.forEach(got::add);
            assertThat(got).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 10).boxed().toList());
        }
    }

    @Test
    void queueCapacitiesChangeWhileFullAndDropNothing() throws Exception {
        Semaphore consumerGate = new Semaphore(0);
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 200).boxed().toList())
                .map("a", (Integer x) -> x, s -> s.queueCapacity(8))
                .map("b", (Integer x) -> {
                    consumerGate.acquireUninterruptibly();
                    return x;
                }, s -> s.queueCapacity(8))
                .build(Sink.buffer(2))) {
            try {
                // Full: b's one worker holds an item at the gate and its queue holds 8 more.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((p.stats().stage("b").inFlight() < 1 || p.stats().stage("b").inputQueue().size() < 8)
                        && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                p.reconfigure("b", StageConfig.EMPTY.withQueueCapacity(3));    // below its size: nothing dropped
                assertThat(p.stats().stage("b").inputQueue().capacity()).isEqualTo(3);
                assertThat(p.stats().stage("b").inputQueue().size()).isEqualTo(8);
                p.reconfigure("a", StageConfig.EMPTY.withQueueCapacity(20));
                p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(5));
                assertThat(p.config().sinkCapacity()).isEqualTo(5);
                assertThat(p.config().stage("a").queueCapacity()).isEqualTo(20);
            } finally {
                consumerGate.release(1000);   // the gate ignores interrupts: a failed assertion must not leave b stuck
            }
            List<Integer> got = new ArrayList<>();
            p.forEach(got::add);
            assertThat(got).hasSize(200).doesNotHaveDuplicates();
            assertThat(p.stats().sink().capacity()).isEqualTo(5);
        }
    }

    @Test
    void reconfigureNamesWhatItCannotChange() {
        try (Pipeline<List<Integer>> p = Pipeline.from(IntStream.range(0, 10).boxed().toList())
                .map("one", (Integer x) -> x, s -> s.ordered())
                .batch(2)
                .build()) {
            assertThatThrownBy(() -> p.reconfigure("nope", StageConfig.EMPTY.withConcurrency(2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'nope'");
            assertThatThrownBy(() -> p.reconfigure("batch", StageConfig.EMPTY.withConcurrency(2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sequential");
            assertThatThrownBy(() -> p.reconfigure("one", new StageConfig(null, null, Order.COMPLETION, null, null, null)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only concurrency and queueCapacity");
            p.reconfigure("one", StageConfig.EMPTY.withQueueCapacity(7));
            assertThat(p.config().stage("one").queueCapacity()).isEqualTo(7);
        }
    }

    @Test
    void anOrderedStageBuiltWithOneWorkerGrowsAndKeepsInputOrder() throws Exception {
        assertThat(assertInputOrderWhileChurning(s -> s.ordered(), 4)).as("changes made by the churn").isNotEmpty();
    }

    @Test
    void anOrderedStageGrownFromOneWorkerRunsAsManyTasksAtOnce() throws Exception {
        // The reorder window of a one-worker stage is 4 tickets: growing to 6 must widen it, or two workers idle.
        InFlight inFlight = new InFlight();
        try (Pipeline<Integer> p = inFlight.pipeline(2_000_000, s -> s.ordered().queueCapacity(2))) {
            Thread consumer = Thread.ofPlatform().start(() -> {
                try {
                    int expected = 0;
                    for (Integer x : p) {
                        if (x != expected++) {
                            throw new AssertionError("got " + x + ", expected " + (expected - 1));
                        }
                    }
                } catch (IllegalStateException closed) {
                    // closed by the test
                }
            });
            p.reconfigure("work", StageConfig.EMPTY.withConcurrency(6));
            inFlight.awaitMax(6);
            assertThat(inFlight.max().get()).as("tasks in flight at once after growing to 6").isEqualTo(6);
            p.close();
            consumer.join(5_000);
        }
    }

    @Test
    void statsListEveryChangeWithItsReason() {
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 10).boxed().toList())
                .map("work", (Integer x) -> x, s -> s.concurrency(2))
                .build()) {
            p.reconfigure("work", new StageConfig(3, 9, null, null, null, null), "more workers");
            p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(5));
            List<Reconfiguration> changes = p.stats().reconfigurations();
            assertThat(changes).extracting(Reconfiguration::change)
                    .containsExactly("work.queueCapacity 4→9", "work.concurrency 2→3", "sink.queueCapacity " + PipelineBuilder.DEFAULT_SINK_CAPACITY + "→5");
            assertThat(changes).extracting(Reconfiguration::reason).containsExactly("more workers", "more workers", "");
            assertThat(changes).extracting(Reconfiguration::atMillis).isSorted();
            assertThat(p.stats().toJson()).contains("\"reconfigurations\"", "more workers");
            p.forEach(x -> { });
        }
    }

    @Test
    void listenersSeeTheNextConfigBeforeItTakesEffect() {
        List<String> seen = new ArrayList<>();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 10).boxed().toList())
                .map("work", (Integer x) -> x, s -> s.concurrency(2))
                .build()) {
            p.beforeReconfigure(next -> seen.add(next.stage("work").concurrency() + " while running "
                    + p.config().stage("work").concurrency() + ", sink " + next.sinkCapacity()));
            p.reconfigure("work", StageConfig.EMPTY.withConcurrency(5));
            p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(7));
            assertThatThrownBy(() -> p.reconfigure("nope", StageConfig.EMPTY.withConcurrency(2)))
                    .isInstanceOf(IllegalArgumentException.class);
            p.forEach(x -> { });
        }
        assertThat(seen).containsExactly("5 while running 2, sink " + PipelineBuilder.DEFAULT_SINK_CAPACITY, "5 while running 5, sink 7");
    }

    @Test
    void tracesRecordEveryChange() {
        TraceRecorder trace = TraceRecorder.create();
        try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 10).boxed().toList())
                .map("work", (Integer x) -> x, s -> s.concurrency(2))
                .trace(trace)
                .build()) {
            long before = trace.recordedEvents();
            p.reconfigure("work", new StageConfig(4, 9, null, null, null, null), "a test");
            p.reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(3));
            assertThat(trace.recordedEvents() - before).isGreaterThanOrEqualTo(3);
            List<TraceRecorder.Slice> slices = new ArrayList<>();
            trace.readSlices(before, slices::add);
            assertThat(slices).filteredOn(s -> s.category().equals("reconfigure"))
                    .extracting(TraceRecorder.Slice::name, TraceRecorder.Slice::detail)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("work.queueCapacity 4→9", "a test"),
                            org.assertj.core.groups.Tuple.tuple("work.concurrency 2→4", "a test"),
                            org.assertj.core.groups.Tuple.tuple("sink.queueCapacity " + PipelineBuilder.DEFAULT_SINK_CAPACITY + "→3", ""));
            p.forEach(x -> { });
        }
    }

    private static void awaitLiveWorkers(Pipeline<?> p, String stage, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            long live = p.liveThreads().stream().filter(t -> t.getName().startsWith("stoker-" + stage + "-")).count();
            if (live == n) {
                return;
            }
            Thread.sleep(2);
        }
        throw new AssertionError("stage " + stage + " did not reach " + n + " live workers: "
                + p.liveThreads().stream().map(Thread::getName).toList());
    }
}
