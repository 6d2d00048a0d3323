package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.Verdict;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Items of several types go to a child JVM and come back as the same pipeline run in-process gives them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessRoundTripTest {

    private static List<String> words(int n) {
        return IntStream.range(0, n).mapToObj(i -> "w" + i).toList();
    }

    private static PipelineBuilder<String> stringStages(List<String> source) {
        return Pipeline.from(source)
                .map("upper", TestStages.Upper.class, "!", s -> s.concurrency(2))
                .flatMap("split", TestStages.Split.class, "3")
                .filter("drop-1", TestStages.Without.class, "-1", s -> s.concurrency(2));
    }

    private static <T> List<T> drain(Pipeline<T> p) {
        List<T> out = new ArrayList<>();
        for (T t : p) {
            out.add(t);
        }
        return out;
    }

    @Test
    void stringsThroughMapFlatMapAndFilterInAChildGiveWhatTheSamePipelineGivesInProcess() {
        List<String> source = words(200);
        List<String> inProcess;
        try (Pipeline<String> p = stringStages(source).build()) {
            inProcess = drain(p);
        }
        try (Pipeline<String> p = stringStages(source).isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING))
                .map("here", s -> s + "?").build()) {
            List<String> isolated = drain(p);
            assertThat(isolated).hasSize(400).containsExactlyInAnyOrderElementsOf(inProcess.stream().map(s -> s + "?").toList());
            assertThat(p.stats().stage("child:upper").itemsIn()).as("child stats merged").isEqualTo(200);
            assertThat(p.stats().stage("child:split").itemsOut()).isEqualTo(600);
            assertThat(p.stats().stage("here").itemsIn()).isEqualTo(400);
        }
        assertThat(ChildJvm.ownSharedMemoryFiles()).as("no shared memory left after close").isEmpty();
    }

    @Test
    void bytesIntegersLongsPathsAndListsRoundTripUnchanged() {
        Random random = new Random(1);
        List<byte[]> blobs = new ArrayList<>();
        for (int size : new int[] {0, 1, 7, 4096, 1 << 20, 3 << 20}) {
            byte[] b = new byte[size];
            random.nextBytes(b);
            blobs.add(b);
        }
        try (Pipeline<Object> p = Pipeline.<Object>from(blobs).map("same", TestStages.Identity.class, "")
                .isolate(ChildJvm.options(ItemCodecs.BYTES, ItemCodecs.BYTES).ringBytes(8 << 20)).build()) {
            List<byte[]> back = drain(p).stream().map(b -> (byte[]) b).toList();
            assertThat(back).hasSize(blobs.size());
            for (byte[] b : blobs) {
                assertThat(back.stream().anyMatch(x -> Arrays.equals(x, b))).as("blob of " + b.length + " bytes").isTrue();
            }
        }
        List<Integer> ints = List.of(0, -1, Integer.MAX_VALUE, 42);
        try (Pipeline<Object> p = Pipeline.<Object>from(ints).map("same", TestStages.Identity.class, "")
                .isolate(ChildJvm.options(ItemCodecs.INTEGER, ItemCodecs.INTEGER)).build()) {
            assertThat(drain(p)).containsExactlyInAnyOrderElementsOf(List.copyOf(ints));
        }
        List<Long> longs = List.of(Long.MIN_VALUE, 0L, 1L << 40);
        try (Pipeline<Object> p = Pipeline.<Object>from(longs).map("same", TestStages.Identity.class, "")
                .isolate(ChildJvm.options(ItemCodecs.LONG_CODEC, ItemCodecs.LONG_CODEC)).build()) {
            assertThat(drain(p)).containsExactlyInAnyOrderElementsOf(List.copyOf(longs));
        }
        List<List<Path>> groups = List.of(List.of(Path.of("/a/x.mp4"), Path.of("b/y.webm")), List.of());
        try (Pipeline<List<String>> p = Pipeline.from(groups).map("names", TestStages.FileNames.class, "")
                .isolate(ChildJvm.options(ItemCodecs.list(ItemCodecs.PATH), ItemCodecs.list(ItemCodecs.STRING))).build()) {
            assertThat(drain(p)).containsExactlyInAnyOrder(List.of("x.mp4", "y.webm"), List.of());
        }
    }

    @Test
    void theVerdictNamesTheSlowChildStageNotTheSourceThatWaitsForIt() throws InterruptedException {
        try (Pipeline<String> p = Pipeline.from(words(60)).map("slow", TestStages.Slow.class, "20")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING)).build()) {
            assertThat(drain(p)).hasSize(60);
            PipelineStats atEnd = p.stats();
            assertThat(atEnd.stage("source").busyFraction()).as("waiting for the child is not work").isZero();
            assertThat(atEnd.verdict().bottleneck()).isEqualTo("child:slow");
            assertThat(atEnd.verdict().state()).isEqualTo(Verdict.State.SATURATED);
            Thread.sleep(200);   // the housekeepers tick on, here and in the idle child
            assertThat(p.stats()).as("the end's stats, the child's stages among them").isEqualTo(atEnd);
        }
    }

    @Test
    void epochBoundariesSurviveTheProcessBoundary() {
        try (Pipeline<String> p = Pipeline.from(words(10)).map("upper", TestStages.Upper.class, "", s -> s.concurrency(3))
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING)).epochs(3).build()) {
            for (int epoch = 0; epoch < 3; epoch++) {
                List<String> items = new ArrayList<>();
                p.nextEpoch().forEach(items::add);
                assertThat(items).as("epoch " + epoch).hasSize(10).contains("W0", "W9");
            }
            List<String> after = new ArrayList<>();
            p.nextEpoch().forEach(after::add);
            assertThat(after).isEmpty();
            assertThat(p.endOfStream()).isTrue();
        }
    }

    @Test
    void aChildStageFailureIsSkippedAndReportedWithItsStageAndReason() {
        try (Pipeline<String> p = Pipeline.from(words(20)).map("check", TestStages.FailOn.class, "w7")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING)).build()) {
            assertThat(drain(p)).hasSize(19).doesNotContain("w7");
            List<Failure> failures = p.failures();
            assertThat(failures).hasSize(1);
            assertThat(failures.getFirst().stage()).isEqualTo("child:check");
            assertThat(failures.getFirst().item()).isEqualTo("w7");
            assertThat(failures.getFirst().reason()).isEqualTo("IllegalArgumentException");
            assertThat(failures.getFirst().cause()).hasMessageContaining("bad item w7");
            assertThat(p.stats().failures()).isEqualTo(1);
        }
    }

    @Test
    void theSpecListsEveryStageWithItsFactoryAndKnobsAndReadsBack() {
        PipelineSpec spec = stringStages(words(1)).batch(4).spec();
        assertThat(spec.stages()).extracting(s -> s.kind().jsonName()).containsExactly("map", "flatMap", "filter", "batch");
        assertThat(spec.stage("upper").factory()).isEqualTo(TestStages.Upper.class.getName());
        assertThat(spec.stage("upper").factoryConfig()).isEqualTo("!");
        assertThat(spec.stage("batch").factoryConfig()).isEqualTo("{\"size\":4,\"dropLast\":false}");
        assertThat(spec.config().stage("upper").concurrency()).isEqualTo(2);
        assertThat(PipelineSpec.fromJson(spec.toJson())).isEqualTo(spec);
        assertThat(spec.stage("split").createFunction().apply("a")).isEqualTo(List.of("a-0", "a-1", "a-2"));
    }

    @Test
    void stagesGivenAsCodeOrAFlatMapAfterABatchCannotBeIsolatedAndSaySo() {
        SubprocessOptions options = ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING);
        assertThatThrownBy(() -> Pipeline.from(words(1)).map("lambda", s -> s).isolate(options))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stage 'lambda' was given as code");
        assertThatThrownBy(() -> Pipeline.from(words(1)).batch(2).map("join", TestStages.Join.class, "+")
                .<String>flatMap("split", TestStages.Split.class, "2").isolate(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stage 'split' (flatMap) follows batch stage 'batch'");
        assertThatThrownBy(() -> Pipeline.from(words(1)).batch(2).map("join", TestStages.Join.class, "+")
                .batch("again", 2, false).isolate(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stage 'again' (batch) follows batch stage 'batch'");
    }
}
