package dev.stoker.jmh;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.Sink;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Scaling: one stage of CPU work ({@link BusyWork}, about 100 µs a task) at concurrency 1 and 2. The
 * pipeline runs for the whole trial from an endless source; each benchmark op takes one result from it
 * and hands it to a Blackhole, so the score is the steady-state rate in items/s without start-up.
 * Target on 2 cores: {@code rate(concurrency 2) >= 0.9 * 2 * rate(concurrency 1)}.
 *
 * <p>{@link #singleThread} runs the same task in the benchmark thread with no queue or handoff: the ceiling
 * for one core. {@link #handWired} is the same stage hand-wired ({@link HandWiredChain}, same capacities),
 * to tell the engine's share of any shortfall from the machine's.
 */
public class ScalingBenchmark {

    /** Work per task, shared by every benchmark here so the rates compare. */
    @State(Scope.Benchmark)
    public static class Work {
        @Param({"" + BusyWork.ROUNDS_100_MICROS})
        int rounds;
    }

    /** An endless source of seeds: the next long, from whichever one thread produces. */
    private static Supplier<Long> seeds() {
        AtomicLong next = new AtomicLong();
        return next::getAndIncrement;
    }

    @State(Scope.Benchmark)
    public static class Engine {
        @Param({"1", "2"})
        int concurrency;

        Pipeline<Long> pipeline;
        Iterator<Long> results;

        @Setup(Level.Trial)
        public void start(Work work) {
            int rounds = work.rounds;
            int workers = concurrency;
            pipeline = Pipeline.from(seeds())
                    .map("work", (Long seed) -> BusyWork.spin(seed, rounds),
                            s -> s.concurrency(workers).queueCapacity(2 * workers))
                    .build(Sink.buffer(2 * workers));
            results = pipeline.iterator();
        }

        @TearDown(Level.Trial)
        public void stop() {
            pipeline.close();
        }
    }

    @State(Scope.Benchmark)
    public static class HandWired {
        @Param({"1", "2"})
        int concurrency;

        HandWiredChain<Long> chain;

        @Setup(Level.Trial)
        public void start(Work work) {
            int rounds = work.rounds;
            Function<Object, Object> spin = seed -> BusyWork.spin((Long) seed, rounds);
            Supplier<Long> seeds = seeds();
            Iterator<Long> endless = new Iterator<>() {
                @Override public boolean hasNext() { return true; }
                @Override public Long next() { return seeds.get(); }
            };
            chain = new HandWiredChain<>(endless, List.of(spin), concurrency,
                    new int[] {2 * concurrency}, 2 * concurrency);
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            chain.close();
        }
    }

    @State(Scope.Thread)
    public static class Seed {
        long next;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void pipeline(Engine engine, Blackhole bh) {
        bh.consume(engine.results.next().longValue());
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void handWired(HandWired hand, Blackhole bh) throws InterruptedException {
        bh.consume(hand.chain.take().longValue());
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long singleThread(Work work, Seed seed) {
        return BusyWork.spin(seed.next++, work.rounds);
    }
}
