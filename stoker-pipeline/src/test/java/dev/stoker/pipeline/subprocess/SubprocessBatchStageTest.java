package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A batch stage in the child (the loader's collate in a child JVM): its outputs, each standing for items of
 * several inputs, arrive exactly as the same pipeline gives them in one process, also when the child is
 * killed mid-run or crashes natively on one item; and they arrive in order, batch boundaries included.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SubprocessBatchStageTest {

    private static List<String> words(int n) {
        return IntStream.range(0, n).mapToObj(i -> "w" + i).toList();
    }

    /** slow → split into 3 → batch of 5 → join: every batch but the first few mixes items of two inputs. */
    private static PipelineBuilder<String> batched(List<String> source, String dropItem) {
        return Pipeline.from(source)
                .map("slow", TestStages.Slow.class, "1", s -> s.concurrency(2).order(Order.INPUT))
                .<String>flatMap("split", TestStages.Split.class, "3", s -> s.concurrency(2).order(Order.INPUT))
                .filter("drop", TestStages.Without.class, dropItem, s -> s.order(Order.INPUT))
                .batch("batch", 5, false)
                .map("join", TestStages.Join.class, "+", s -> s.order(Order.INPUT));
    }

    private static List<String> inProcess(List<String> source, String dropItem) {
        List<String> out = new ArrayList<>();
        try (Pipeline<String> p = batched(source, dropItem).build()) {
            p.forEach(out::add);
        }
        return out;
    }

    @Test
    void batchesMadeInTheChildArriveAsInProcessAcrossEpochs() {
        List<String> source = words(23);
        List<String> expected = new ArrayList<>();
        try (Pipeline<String> p = batched(source, "none").epochs(2).build()) {
            p.forEach(expected::add);
        }
        try (Pipeline<String> p = batched(source, "none").isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING))
                .epochs(2).build()) {
            List<String> got = new ArrayList<>();
            p.forEach(got::add);
            assertThat(got).as("69 items per epoch: 13 full batches and a last one of 4, twice").hasSize(28)
                    .containsExactlyElementsOf(expected);
            assertThat(got.get(13)).isEqualTo("w21-2+w22-0+w22-1+w22-2");
            assertThat(p.stats().stage("child:batch").itemsOut()).isEqualTo(28);
            assertThat(p.failures()).isEmpty();
        }
        assertThat(ChildJvm.ownSharedMemoryFiles()).isEmpty();
    }

    @Test
    void aBatchStageLastInTheChildSendsItsListsBack() {
        List<List<String>> expected = new ArrayList<>();
        try (Pipeline<List<String>> p = Pipeline.from(words(11)).batch(4).build()) {
            p.forEach(expected::add);
        }
        try (Pipeline<List<String>> p = Pipeline.from(words(11)).batch(4)
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.list(ItemCodecs.STRING))).build()) {
            List<List<String>> got = new ArrayList<>();
            p.forEach(got::add);
            assertThat(got).containsExactlyElementsOf(expected).hasSize(3);
        }
    }

    @Test
    void childKilledWithSigkillMidRunDeliversEveryBatchOnceInOrder() {
        List<String> source = words(120);
        List<String> expected = inProcess(source, "none");
        List<Long> pids = new CopyOnWriteArrayList<>();
        List<String> got;
        try (Pipeline<String> p = batched(source, "none")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(pids::add)).build()) {
            got = ChildJvm.drainKillingFirstChild(p, pids, 25);
            assertThat(pids).as("a second child took over").hasSize(2);
            assertThat(p.failures()).as("a kill is no item's fault").isEmpty();
        }
        assertThat(got).as("72 batches, none lost, none repeated, same boundaries").hasSize(72)
                .containsExactlyElementsOf(expected);
        assertThat(ChildJvm.ownSharedMemoryFiles()).isEmpty();
    }

    @Test
    void anItemThatCrashesTheChildIsQuarantinedAndTheBatchesOfTheOthersArriveAsInProcess() {
        List<String> source = new ArrayList<>(words(30));
        source.set(11, "boom");
        // In one process, the same pipeline with "boom" filtered out: what the quarantine must amount to.
        List<String> expected = inProcess(source, "boom");
        List<Long> pids = new CopyOnWriteArrayList<>();
        List<String> got = new ArrayList<>();
        try (Pipeline<String> p = Pipeline.from(source)
                .map("decode", TestStages.SegfaultOn.class, "boom", s -> s.concurrency(2).order(Order.INPUT))
                .map("slow", TestStages.Slow.class, "1", s -> s.concurrency(2).order(Order.INPUT))
                .<String>flatMap("split", TestStages.Split.class, "3", s -> s.concurrency(2).order(Order.INPUT))
                .filter("drop", TestStages.Without.class, "none", s -> s.order(Order.INPUT))
                .batch("batch", 5, false)
                .map("join", TestStages.Join.class, "+", s -> s.order(Order.INPUT))
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(pids::add)).build()) {
            p.forEach(got::add);
            List<Failure> failures = p.failures();
            assertThat(failures).hasSize(1);
            assertThat(failures.getFirst().item()).isEqualTo("boom");
            assertThat(failures.getFirst().reason()).isEqualTo("crashed the decoder");
        }
        ChildJvm.deleteCrashReports(pids);
        assertThat(pids).as("crash, probation crash, then a healthy child").hasSize(3);
        assertThat(got).containsExactlyElementsOf(expected);
    }
}
