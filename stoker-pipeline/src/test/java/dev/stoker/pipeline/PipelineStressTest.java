package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random pipelines (stage kinds, concurrency, order, queue sizes, failures, drops, delays) checked
 * against a single-threaded model: every input is delivered exactly as often as the model says, or
 * reported as failed — nothing lost, nothing duplicated.
 */
class PipelineStressTest {

    static IntStream seeds() {
        return IntStream.range(0, Integer.getInteger("stoker.stress.seeds", 40));
    }

    /** A deterministic stage behaviour: what happens to value v in stage s. */
    private record Step(int stage, int kind, int failEvery, int dropEvery) {
        List<Long> model(long v) {
            long h = (v * 31 + stage * 7919L) & Long.MAX_VALUE;
            if (failEvery > 0 && h % failEvery == 0) {
                return null; // failure
            }
            if (kind == 0) { // map, maybe drop
                return dropEvery > 0 && h % dropEvery == 1 ? List.of() : List.of(v + 1);
            }
            if (kind == 1) { // flatMap into 0..2 outputs
                int n = (int) (h % 3);
                List<Long> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    out.add(v * 3 + i);
                }
                return out;
            }
            return h % 4 == 0 ? List.of() : List.of(v); // filter
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyInputIsDeliveredOnceOrReportedFailed(int seed) {
        Random r = new Random(seed);
        int stages = 1 + r.nextInt(4);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < stages; i++) {
            steps.add(new Step(i, r.nextInt(3), r.nextBoolean() ? 0 : 5 + r.nextInt(20), 3 + r.nextInt(10)));
        }
        int items = 200 + r.nextInt(800);
        boolean batched = r.nextBoolean();

        // Model.
        Map<Long, Integer> expected = new HashMap<>();
        long expectedFailures = 0;
        List<Long> current = new ArrayList<>();
        for (long i = 0; i < items; i++) {
            current.add(i);
        }
        for (Step step : steps) {
            List<Long> next = new ArrayList<>();
            for (long v : current) {
                List<Long> out = step.model(v);
                if (out == null) {
                    expectedFailures++;
                } else {
                    next.addAll(out);
                }
            }
            current = next;
        }
        current.forEach(v -> expected.merge(v, 1, Integer::sum));

        // Pipeline.
        PipelineBuilder<Long> b = Pipeline.from(IntStream.range(0, items).mapToObj(i -> (long) i).toList());
        for (Step step : steps) {
            int concurrency = 1 + r.nextInt(6);
            boolean ordered = r.nextBoolean();
            int queue = 1 + r.nextInt(5);
            java.util.function.Consumer<StageOptions> opts = s -> {
                s.concurrency(concurrency).queueCapacity(queue).failureBudget(FailureBudget.count(1_000_000));
                if (ordered) {
                    s.ordered();
                }
            };
            Function<Long, List<Long>> behave = v -> {
                if (ThreadLocalRandom.current().nextInt(8) == 0) {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(50_000));
                }
                List<Long> out = step.model(v);
                if (out == null) {
                    throw new IllegalStateException("planned failure of " + v + " in stage " + step.stage());
                }
                return out;
            };
            String name = "s" + step.stage();
            b = switch (step.kind()) {
                case 0 -> b.map(name, v -> {
                    List<Long> out = behave.apply(v);
                    return out.isEmpty() ? null : out.getFirst();
                }, opts);
                case 1 -> b.flatMap(name, behave::apply, opts);
                default -> b.filter(name, v -> !behave.apply(v).isEmpty(), opts);
            };
        }
        Map<Long, Integer> actual = new HashMap<>();
        long failures;
        if (batched) {
            try (Pipeline<List<Long>> p = b.batch(1 + r.nextInt(7)).build(Sink.buffer(1 + r.nextInt(3)))) {
                p.forEach(batch -> batch.forEach(v -> actual.merge(v, 1, Integer::sum)));
                failures = p.failures().size();
                assertThat(p.stats().failures()).isEqualTo(failures);
            }
        } else {
            try (Pipeline<Long> p = b.build(Sink.buffer(1 + r.nextInt(3)))) {
                p.forEach(v -> actual.merge(v, 1, Integer::sum));
                failures = p.failures().size();
            }
        }
        assertThat(actual).as("seed %d, steps %s", seed, steps).isEqualTo(expected);
        assertThat(failures).as("seed %d", seed).isEqualTo(expectedFailures);
    }
}
