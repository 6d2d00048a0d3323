package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineFailedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A child that dies mid-run is restarted; nothing delivered is lost or duplicated; a killer item is quarantined. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessCrashRecoveryTest {

    private static List<String> words(int n) {
        return IntStream.range(0, n).mapToObj(i -> "w" + i).toList();
    }

    @Test
    void childKilledWithSigkillMidRunLosesNothingAndDuplicatesNothing() {
        List<Long> pids = new CopyOnWriteArrayList<>();
        List<String> source = words(150);
        List<String> expected = source.stream().flatMap(w -> IntStream.range(0, 3).mapToObj(i -> w + "-" + i)).toList();
        List<String> got;
        try (Pipeline<String> p = Pipeline.from(source)
                .map("slow", TestStages.Slow.class, "2", s -> s.concurrency(2))
                .<String>flatMap("split", TestStages.Split.class, "3", s -> s.concurrency(2))
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(pids::add))
                .build()) {
            got = ChildJvm.drainKillingFirstChild(p, pids, 100);
            assertThat(pids).as("a second child took over").hasSize(2);
            assertThat(p.failures()).as("a kill is no item's fault").isEmpty();
        }
        assertThat(got).hasSize(expected.size()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void anItemThatCrashesTheJvmNativelyIsQuarantinedAndAllOthersArrive() {
        List<Long> pids = new CopyOnWriteArrayList<>();
        List<String> source = new ArrayList<>(words(40));
        source.set(17, "boom");
        List<String> got = new ArrayList<>();
        try (Pipeline<String> p = Pipeline.from(source)
                .map("decode", TestStages.SegfaultOn.class, "boom", s -> s.concurrency(2))
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(pids::add))
                .build()) {
            p.forEach(got::add);
            List<Failure> failures = p.failures();
            assertThat(failures).hasSize(1);
            assertThat(failures.getFirst().item()).isEqualTo("boom");
            assertThat(failures.getFirst().reason()).isEqualTo("crashed the decoder");
            assertThat(failures.getFirst().cause()).isInstanceOf(ChildCrashedException.class)
                    .hasMessageContaining("killed the child process twice");
            assertThat(p.stats().failuresByReason()).containsEntry("child:decode: crashed the decoder", 1L);
        }
        ChildJvm.deleteCrashReports(pids);
        assertThat(pids).as("crash, probation crash, then a healthy child").hasSize(3);
        List<String> expected = new ArrayList<>(source);
        expected.remove("boom");
        assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void crashesBeyondTheBudgetEndTheRunWithPipelineFailedException() {
        List<String> got = new ArrayList<>();
        List<Long> pids = new CopyOnWriteArrayList<>();
        // "boom" first: the probation after its first crash sends it first again, so nothing is done between the
        // two restarts (a restart after progress starts the count again).
        try (Pipeline<String> p = Pipeline.from(List.of("boom", "a", "b"))
                .map("decode", TestStages.SegfaultOn.class, "boom")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).crashBudget(1).onChildStart(pids::add))
                .build()) {
            assertThatThrownBy(() -> p.forEach(got::add)).isInstanceOf(PipelineFailedException.class)
                    .hasMessageContaining("crash budget: 1 restarts")
                    .hasMessageContaining("'boom'");
        }
        ChildJvm.deleteCrashReports(pids);
    }
}
