package dev.stoker.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The yardsticks of a run, measured on the clips it delivered (real videos, decoded again): the first batch
 * and one clip of every video are kept, the reference, the machine's ceiling and the first batch's bound come
 * from them, and the efficiencies are the run's figures against the reference.
 */
@Timeout(120)
class YardsticksTest {
    @TempDir
    static Path source;
    private static Dataset data;

    @BeforeAll
    static void demo() throws IOException {
        DemoDataset.create(source, DemoSpec.small(2, 2, 2.0)); // 4 videos
        data = Dataset.open(source);
    }

    @Test
    void measuredOnTheFirstBatchAndOneClipOfEveryVideo() throws Exception {
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(48, 48, Resize.Mode.SHORT_SIDE_CENTER_CROP, 64)
                .batch(2, false, BatchLayout.NTHWC).build();
        DeliveredClips delivered = new DeliveredClips(3);
        List<List<ClipInfo>> batches = new ArrayList<>();
        SteadyStateRun run = SteadyStateRun.start(6);
        try (VideoLoader loader = VideoLoader.open(data, options)) {
            run.drive(loader, (index, b) -> {
                delivered.accept(index, b);
                batches.add(b.clips());
            });
        }
        SteadyStateRun.Figures figures = run.finish();
        assertThat(delivered.firstBatch()).isEqualTo(batches.getFirst());
        assertThat(delivered.onePerVideo()).as("the first clip of each video, at most 3 videos").hasSize(3)
                .extracting(ClipInfo::path).doesNotHaveDuplicates();
        assertThat(delivered.onePerVideo().getFirst()).isEqualTo(batches.getFirst().getFirst());

        StringWriter said = new StringWriter();
        Yardsticks y = Yardsticks.measure(delivered, figures.firstBatchSeconds(), options, 2, true, new PrintWriter(said, true));
        assertThat(said.toString()).contains("single-thread reference", "machine's ceiling: 2 threads");
        assertThat(y.reference().clips()).isEqualTo(3);
        assertThat(y.reference().clipsPerSecond()).isPositive();
        assertThat(y.ceiling().threads()).isEqualTo(2);
        assertThat(y.ceiling().ceiling()).isCloseTo(y.ceiling().parallelClipsPerSecond()
                / (2 * y.ceiling().singleClipsPerSecond()), org.assertj.core.api.Assertions.within(1e-9));
        assertThat(y.ceiling().asCeiling().samplesPerSecond()).isEqualTo(y.ceiling().parallelClipsPerSecond());
        assertThat(y.firstBatchBound().clips()).isEqualTo(2);
        assertThat(y.firstBatchBound().seconds()).isEqualTo(figures.firstBatchSeconds());
        assertThat(y.decodeEfficiency(figures.samplesPerSecond(), 2))
                .isEqualTo(figures.samplesPerSecond() / (2 * y.reference().clipsPerSecond()));
        assertThat(y.cpuEfficiency(figures.cpuSecondsPerSample()))
                .isEqualTo(y.reference().cpuSecondsPerClip() / figures.cpuSecondsPerSample());
    }

    @Test
    void withoutAReferenceThereIsNoEfficiency() throws Exception {
        assertThat(Yardsticks.NONE.decodeEfficiency(100, 2)).isNaN();
        assertThat(Yardsticks.NONE.cpuEfficiency(0.01)).isNaN();
        StringWriter said = new StringWriter();
        assertThat(Yardsticks.measure(new DeliveredClips(8), 1.0, LoaderOptions.defaults(), 2, true, new PrintWriter(said)))
                .as("no clip delivered: nothing to measure").isSameAs(Yardsticks.NONE);
        assertThat(said.toString()).isEmpty();
    }
}
