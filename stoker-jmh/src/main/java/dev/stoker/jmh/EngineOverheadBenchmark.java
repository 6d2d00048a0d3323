package dev.stoker.jmh;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.Sink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Engine overhead: three trivial stages ({@code x + 1}, one worker each) through the engine versus the same
 * three stages hand-wired with platform threads and {@code ArrayBlockingQueue}s ({@link HandWiredChain}).
 *
 * <p>Fair by construction: both run a source thread, three stage threads and the caller as consumer; every
 * queue (the three stage inputs and the sink) has capacity {@code queueCapacity} on both sides; both consume
 * by summing the results. Each invocation pushes {@value #ITEMS} items through a freshly started chain and
 * closes it, so the figure is items/s <em>including</em> start and close; {@link #pipelineStartup} and
 * {@link #handWiredStartup} measure those alone (one item through).
 */
@State(Scope.Benchmark)
public class EngineOverheadBenchmark {
    static final int ITEMS = 100_000;

    @Param({"256"})
    int queueCapacity;

    private List<Integer> items;
    private final List<Integer> oneItem = List.of(1);

    @Setup(Level.Trial)
    public void setUp() {
        items = new ArrayList<>(ITEMS);
        for (int i = 0; i < ITEMS; i++) {
            items.add(i);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(ITEMS)
    public long pipeline() {
        return runPipeline(items);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(ITEMS)
    public long handWired() throws InterruptedException {
        return runHandWired(items);
    }

    /** Build, one item through, close. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long pipelineStartup() {
        return runPipeline(oneItem);
    }

    /** Start four threads, one item through, join them. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long handWiredStartup() throws InterruptedException {
        return runHandWired(oneItem);
    }

    private long runPipeline(List<Integer> source) {
        int capacity = queueCapacity;
        try (Pipeline<Integer> p = Pipeline.from(source)
                .map("a", (Integer x) -> x + 1, s -> s.concurrency(1).queueCapacity(capacity))
                .map("b", (Integer x) -> x + 1, s -> s.concurrency(1).queueCapacity(capacity))
                .map("c", (Integer x) -> x + 1, s -> s.concurrency(1).queueCapacity(capacity))
                .build(Sink.buffer(capacity))) {
            long sum = 0;
            for (Integer v : p) {
                sum += v;
            }
            return sum;
        }
    }

    private long runHandWired(List<Integer> source) throws InterruptedException {
        Function<Object, Object> plusOne = x -> (Integer) x + 1;
        int[] capacities = {queueCapacity, queueCapacity, queueCapacity};
        try (HandWiredChain<Integer> chain = new HandWiredChain<>(source.iterator(),
                List.of(plusOne, plusOne, plusOne), 1, capacities, queueCapacity)) {
            long sum = 0;
            for (Integer v = chain.take(); v != null; v = chain.take()) {
                sum += v;
            }
            return sum;
        }
    }
}
