package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * The GPU loader (against a fake device) keeps the loader contract: the CPU loader's batches in its order, a
 * resume state that follows the batches handed out rather than the transfer running ahead, and epochs one at
 * a time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GpuLoaderContractTest {
    static Dataset dataset;

    /** {@code dir} lives as long as the class's tests (JUnit deletes a {@code @BeforeAll} temp dir after them). */
    @BeforeAll
    static void makeDataset(@TempDir Path dir) throws Exception {
        dataset = Dataset.open(DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 3, 1.0)));
    }

    private static LoaderOptions options(int epochs) {
        return LoaderOptions.builder().clip(4, 2).size(32, 32, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC).order(7, true, epochs).build();
    }

    /** The GPU loader over the video loader of the dataset, on a fake device. */
    private static GpuLoader onFakeDevice(Opening opening) throws IOException {
        return GpuLoader.open((options, o) -> VideoLoader.open(dataset, options, o), options(2), new FakeDevice(true), opening);
    }

    private static String describe(List<ClipInfo> clips) {
        return clips.stream().map(c -> c.path().getFileName() + "@" + c.frameTimestampsSeconds()[0]).toList().toString();
    }

    @Test
    void itDeliversTheCpuLoadersBatchesAndItsStateFollowsTheConsumer() throws IOException {
        List<String> cpuBatches = new ArrayList<>();
        List<SamplerState> cpuStates = new ArrayList<>();
        try (VideoLoader cpu = VideoLoader.open(dataset, options(2))) {
            for (ClipBatch b : cpu) {
                try (b) {
                    cpuBatches.add(describe(b.clips()));
                    cpuStates.add(cpu.state());
                }
            }
        }
        List<String> gpuBatches = new ArrayList<>();
        try (ClipLoader<DeviceBatch> gpu = onFakeDevice(Opening.defaults())) {
            assertThat(gpu.state()).as("before the first batch: the start").isEqualTo(gpu.sampler().state(0, 0, 0));
            Iterator<DeviceBatch> it = gpu.iterator();
            while (it.hasNext()) {
                try (LoadedBatch b = it.next()) {
                    gpuBatches.add(describe(b.clips()));
                    assertThat(gpu.state()).as("after batch " + gpuBatches.size())
                            .isEqualTo(cpuStates.get(gpuBatches.size() - 1));
                }
            }
            assertThat(gpu.decodedClips()).isEqualTo(cpuBatches.size() * 2L);
            assertThat(gpu.failures()).isEmpty();
        }
        assertThat(gpuBatches).isEqualTo(cpuBatches).hasSize(6);
    }

    @Test
    void aResumedLoaderDeliversWhatTheUninterruptedOneWouldHave() throws IOException {
        List<String> all = new ArrayList<>();
        SamplerState afterTwo = null;
        try (GpuLoader gpu = onFakeDevice(Opening.defaults())) {
            for (DeviceBatch b : gpu) {
                try (b) {
                    all.add(describe(b.clips()));
                    if (all.size() == 2) {
                        afterTwo = gpu.state();
                    }
                }
            }
        }
        List<String> rest = new ArrayList<>();
        try (GpuLoader resumed = onFakeDevice(Opening.defaults().resumingFrom(afterTwo))) {
            for (DeviceBatch b : resumed) {
                try (b) {
                    rest.add(describe(b.clips()));
                }
            }
        }
        assertThat(rest).isEqualTo(all.subList(2, all.size()));
    }

    @Test
    void epochsComeOneAtATime() throws IOException {
        try (GpuLoader gpu = onFakeDevice(Opening.defaults())) {
            for (int epoch = 0; epoch < 2; epoch++) {
                int batches = 0;
                for (DeviceBatch b : gpu.nextEpoch()) {
                    try (b) {
                        batches++;
                    }
                }
                assertThat(batches).as("epoch " + epoch).isEqualTo(3);
                assertThat(gpu.state().epoch()).isEqualTo(epoch + 1);
            }
        }
    }
}
