package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JfrEventsTest {

    @Test
    void taskAndQueueEventsAreRecordedAndReadBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("stoker.Task");
            recording.enable("stoker.QueueSample");
            recording.start();
            try (Pipeline<Integer> p = Pipeline.from(IntStream.range(0, 200).boxed().toList())
                    .map("fetch", x -> x, s -> s.describeItems(x -> "video-" + x + ".mp4"))
                    .map("decode", (Integer x) -> {
                        // parkNanos may return early (a pending unpark permit): wait out the deadline.
                        long until = System.nanoTime() + 200_000;
                        while (System.nanoTime() < until) {
                            LockSupport.parkNanos(until - System.nanoTime());
                        }
                        if (x == 7) {
                            throw new IllegalStateException("bad");
                        }
                        return x;
                    }, s -> s.concurrency(2).failureBudget(FailureBudget.count(5)))
                    .build()) {
                p.forEach(x -> { });
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> tasks = events.stream().filter(e -> e.getEventType().getName().equals("stoker.Task")).toList();
        assertThat(tasks).hasSize(400);
        Set<String> stages = new HashSet<>();
        for (RecordedEvent e : tasks) {
            stages.add(e.getString("stage"));
        }
        assertThat(stages).containsExactlyInAnyOrder("fetch", "decode");
        assertThat(tasks).filteredOn(e -> e.getString("stage").equals("fetch"))
                .anySatisfy(e -> assertThat(e.getString("item")).isEqualTo("video-3.mp4"));
        assertThat(tasks).filteredOn(e -> e.getBoolean("failed")).singleElement()
                .satisfies(e -> assertThat(e.getString("stage")).isEqualTo("decode"));
        assertThat(tasks).filteredOn(e -> e.getString("stage").equals("decode"))
                .allSatisfy(e -> assertThat(e.getDuration().toNanos()).isGreaterThanOrEqualTo(150_000));
        assertThat(events).anySatisfy(e -> {
            assertThat(e.getEventType().getName()).isEqualTo("stoker.QueueSample");
            assertThat(e.getInt("capacity")).isPositive();
        });
    }
}
