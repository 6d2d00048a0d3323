package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PipelineSmokeTest {
    @Test
    void mapFlatMapBatchDeliversEverything() {
        List<Integer> input = IntStream.range(0, 1000).boxed().toList();
        List<List<String>> out = new ArrayList<>();
        try (Pipeline<List<String>> p = Pipeline.from(input)
                .map("double", i -> i * 2, s -> s.concurrency(4))
                .flatMap("split", i -> List.of(i, i + 1), s -> s.concurrency(2).ordered())
                .filter("even", i -> i % 2 == 0)
                .map("str", String::valueOf)
                .batch(32)
                .build()) {
            for (List<String> b : p) {
                out.add(b);
            }
            System.out.println(p.stats().toTable());
            assertThat(p.stats().toJson()).contains("\"busyFraction\"");
        }
        assertThat(out.stream().mapToInt(List::size).sum()).isEqualTo(1000);
    }
}
