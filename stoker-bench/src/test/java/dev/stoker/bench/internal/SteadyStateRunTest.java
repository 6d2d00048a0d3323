package dev.stoker.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one steady-state loop, over a real {@link VideoLoader} decoding real files: it takes the batches asked
 * for, counts the first ones as warm-up, hands every open batch to the step in order, waits the consumer's
 * step after each one, and reports the steady state apart from the whole run.
 */
@Timeout(120)
class SteadyStateRunTest {
    private static final int BATCH = 2;

    @TempDir
    static Path source;
    private static Dataset data;

    @BeforeAll
    static void demo() throws IOException {
        DemoDataset.create(source, DemoSpec.small(2, 2, 2.0));
        data = Dataset.open(source);
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(48, 48, Resize.Mode.SHORT_SIDE_CENTER_CROP, 64).batch(BATCH, false, BatchLayout.NTHWC).build();
    }

    @Test
    void warmUpIsLeftOutOfTheSteadyStateAndEveryBatchGoesThroughTheStep() throws Exception {
        MemoryTimeline memory = new MemoryTimeline(6);
        SteadyStateRun run = SteadyStateRun.settings(6).memory(memory).consumerStep(20).start();
        List<Long> indices = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(data, options())) {
            run.drive(loader, (index, b) -> {
                assertThat(b.clipCount()).isEqualTo(BATCH);
                indices.add(index);
            });
            assertThat(run.sinkAfterWarmup()).as("the consumer's side when the 2 warm-up batches were taken").isNotNull();
            assertThat(run.sinkAfterWarmup().delivered()).isGreaterThanOrEqualTo(2);
        }
        SteadyStateRun.Figures f = run.finish();
        assertThat(indices).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(f.batches()).isEqualTo(6);
        assertThat(f.samples()).isEqualTo(6 * BATCH);
        assertThat(f.steadySamples()).as("after the default warm-up of 2 batches").isEqualTo(4 * BATCH);
        assertThat(f.steadySeconds()).as("4 consumer steps of 20 ms at least").isGreaterThanOrEqualTo(0.08);
        assertThat(f.seconds()).isGreaterThan(f.steadySeconds());
        assertThat(f.firstBatchSeconds()).isPositive().isLessThan(f.seconds());
        assertThat(f.samplesPerSecond()).isEqualTo(f.steadySamples() / f.steadySeconds());
        assertThat(f.steadyCpuSeconds()).isPositive();
        assertThat(f.cpuSecondsPerSample()).isEqualTo(f.steadyCpuSeconds() / f.steadySamples());
        BenchResult.Memory readings = memory.finish();
        assertThat(readings.afterWarmup()).as("read when the warm-up ended").isNotNull();
        assertThat(readings.end().rssBytes()).isPositive();
    }

    @Test
    void withoutWarmUpTheWholeRunIsTheSteadyState() throws Exception {
        SteadyStateRun run = SteadyStateRun.settings(3).warmup(0).start();
        try (VideoLoader loader = VideoLoader.open(data, options())) {
            run.drive(loader, null);
        }
        SteadyStateRun.Figures f = run.finish();
        assertThat(f.batches()).isEqualTo(3);
        assertThat(f.steadySamples()).isEqualTo(f.samples()).isEqualTo(3 * BATCH);
        assertThat(f.steadySeconds()).isEqualTo(f.seconds());
        assertThat(run.sinkAfterWarmup()).as("no warm-up ended: nothing to subtract").isNull();
    }

    @Test
    void aLoaderThatEndsBeforeTheWarmUpIsMeasuredWhole() throws Exception {
        LoaderOptions oneEpoch = options().toBuilder().order(0, false, 1).build(); // 4 videos: 2 batches, then the end
        SteadyStateRun run = SteadyStateRun.start(100); // a warm-up of 10 batches
        try (VideoLoader loader = VideoLoader.open(data, oneEpoch)) {
            run.drive(loader, (index, b) -> assertThat(b).isInstanceOf(ClipBatch.class));
        }
        SteadyStateRun.Figures f = run.finish();
        assertThat(f.batches()).isEqualTo(2);
        assertThat(f.steadySamples()).isEqualTo(f.samples()).isEqualTo(4);
        assertThat(f.samplesPerSecond()).isEqualTo(f.samples() / f.seconds());
        assertThat(f.cpuSecondsPerSample()).as("no CPU reading without a steady state").isNaN();
    }
}
