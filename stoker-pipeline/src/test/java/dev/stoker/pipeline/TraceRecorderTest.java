package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceRecorderTest {

    private static JsonNode run(TraceRecorder trace, Path file, int items) throws Exception {
        try (Pipeline<List<Integer>> p = Pipeline.from(IntStream.range(0, items).boxed().toList())
                .map("fetch", x -> x, s -> s.concurrency(2))
                .flatMap("demux", (Integer x) -> List.of(x, x))
                .map("decode", x -> x, s -> s.concurrency(2).ordered())
                .batch(4)
                .trace(trace)
                .build()) {
            p.forEach(b -> { });
        }
        trace.write(file);
        return new ObjectMapper().readTree(file.toFile());
    }

    @Test
    void traceIsWellFormedChromeTraceEventJsonCoveringEveryStage(@TempDir Path dir) throws Exception {
        JsonNode root = run(TraceRecorder.create(), dir.resolve("t.json"), 200);
        JsonNode events = root.get("traceEvents");
        assertThat(events.isArray()).isTrue();
        Set<String> sliceNames = new HashSet<>();
        Set<String> counters = new HashSet<>();
        Set<Long> namedThreads = new HashSet<>();
        for (JsonNode e : events) {
            String ph = e.get("ph").asText();
            assertThat(e.has("name") && e.has("pid") && e.has("tid")).as("required fields in %s", e).isTrue();
            switch (ph) {
                case "X" -> {
                    assertThat(e.get("ts").isNumber()).isTrue();
                    assertThat(e.get("dur").asDouble()).isGreaterThanOrEqualTo(0);
                    assertThat(e.get("args").has("item")).isTrue();
                    sliceNames.add(e.get("name").asText());
                }
                case "C" -> {
                    assertThat(e.get("args").get("size").isNumber()).isTrue();
                    counters.add(e.get("name").asText());
                }
                case "M" -> {
                    if (e.get("name").asText().equals("thread_name")) {
                        namedThreads.add(e.get("tid").asLong());
                    }
                }
                default -> throw new AssertionError("unexpected phase " + ph);
            }
        }
        assertThat(sliceNames).contains("source", "fetch", "demux", "decode", "batch");
        for (JsonNode e : events) {
            if (e.get("ph").asText().equals("X")) {
                assertThat(namedThreads).contains(e.get("tid").asLong());
            }
        }
        // Counter tracks are sampled every 10 ms; a short run may end before the first sample.
        assertThat(counters).allMatch(c -> c.startsWith("queue "));
    }

    @Test
    void theRingKeepsOnlyTheNewestEvents(@TempDir Path dir) throws Exception {
        TraceRecorder trace = TraceRecorder.withMaxEvents(100);
        JsonNode root = run(trace, dir.resolve("t.json"), 2_000);
        assertThat(trace.recordedEvents()).isGreaterThan(2_000);
        long slices = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if (!e.get("ph").asText().equals("M")) {
                slices++;
            }
        }
        assertThat(slices).isEqualTo(100);
    }
}
