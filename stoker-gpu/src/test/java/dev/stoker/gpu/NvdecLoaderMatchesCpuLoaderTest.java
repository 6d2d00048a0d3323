package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The NVDEC loader's wiring without a GPU: on a fake device whose memory is host memory, with the CPU
 * decode session in place of NVDEC, it must deliver exactly the CPU loader's batches (same clips in the
 * same order, same bytes in either layout, same labels, frame times and resume states): everything but
 * the decoding itself (clip planning, crop seeds, device clip buffers, device-to-device collate, resume)
 * is then shown to be the CPU path's.
 */
@Timeout(180)
class NvdecLoaderMatchesCpuLoaderTest {
    @TempDir
    static Path dir;
    static Path data;

    @BeforeAll
    static void makeData() throws IOException {
        data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 3, 2.0)); // H.264 and one VP8
    }

    record Delivered(long[] shape, int[] labels, List<ClipInfo> clips, byte[] bytes) {
        @Override
        public String toString() {
            return Arrays.toString(shape) + " " + clips;
        }
    }

    static List<Delivered> cpuBatches(Path dataset, LoaderOptions options) throws IOException {
        List<Delivered> out = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(Dataset.open(dataset), options)) {
            for (ClipBatch b : loader) {
                try (b) {
                    out.add(new Delivered(b.shape(), b.labels(), b.clips(), b.data().toArray(ValueLayout.JAVA_BYTE)));
                }
            }
        }
        return out;
    }

    /** The NVDEC loader on {@code device} with a CPU decode session per worker. */
    static NvdecLoader withCpuSessions(FakeDevice device, LoaderOptions options, ResumeTracker from) throws IOException {
        BatchShape clip = new BatchShape(1, options.clip().frames(), options.size().height(), options.size().width(), 3, options.batch().layout());
        return NvdecLoader.open(Dataset.open(data), options, device,
                () -> new CpuClipUploader(device, clip, 1, options.decode().skipNonReferenceFrames()), null, from, null);
    }

    /** What was sampled: path, label and frame times of each clip. */
    static List<String> sampled(List<ClipInfo> clips) {
        return clips.stream().map(c -> c.path() + " " + c.label() + " " + Arrays.toString(c.frameTimestampsSeconds()))
                .toList();
    }

    static Delivered copy(DeviceBatch b) {
        return new Delivered(b.shape(), b.labels(), b.clips(),
                FakeDevice.deviceBytes(b.devicePointer(), b.byteSize()).toArray(ValueLayout.JAVA_BYTE));
    }

    @ParameterizedTest
    @CsvSource({
            "NTHWC, SHORT_SIDE_CENTER_CROP, 1",
            "NCTHW, SHORT_SIDE_CENTER_CROP, 1",
            "NTHWC, SHORT_SIDE_RANDOM_CROP, 2",
            "NCTHW, STRETCH, 3"})
    void deliversTheCpuLoadersBatchesByteForByte(BatchLayout layout, Resize.Mode resize, int clipsPerVideo)
            throws IOException {
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(48, 40, resize, 56)
                .batch(4, false, layout).clipStarts(LoaderOptions.ClipStarts.RANDOM, clipsPerVideo, 1.0)
                .order(11, true, 2).build();
        List<Delivered> expected = cpuBatches(data, options);
        FakeDevice device = new FakeDevice(true);
        List<Delivered> actual = new ArrayList<>();
        try (NvdecLoader loader = withCpuSessions(device, options, LoaderFront.start(Dataset.open(data), options))) {
            long sequence = 0;
            for (DeviceBatch b : loader) {
                try (b) {
                    assertThat(b.sequence()).isEqualTo(sequence++);
                    assertThat(b.layout()).isEqualTo(layout);
                    assertThat(b.ready().isComplete()).as("the collate copies finished").isTrue();
                    actual.add(copy(b));
                }
            }
            assertThat(loader.decodedClips()).isEqualTo(6L * clipsPerVideo * 2);
            assertThat(loader.cpuFallbackClips()).isZero();
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i).shape()).as("batch %d shape", i).isEqualTo(expected.get(i).shape());
            assertThat(actual.get(i).labels()).as("batch %d labels", i).isEqualTo(expected.get(i).labels());
            assertThat(actual.get(i).clips()).as("batch %d clips", i).isEqualTo(expected.get(i).clips());
            assertThat(actual.get(i).bytes()).as("batch %d bytes", i).isEqualTo(expected.get(i).bytes());
        }
    }

    @Test
    void resumesWhereTheCpuLoaderWouldAndThenDeliversTheSameBatches() throws IOException {
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(32, 32, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 0)
                .batch(4, false, BatchLayout.NTHWC).clipStarts(LoaderOptions.ClipStarts.RANDOM, 3, 1.0)
                .order(5, true, 2).build();
        // States after 2 batches: the CPU loader's and the NVDEC loader's.
        SamplerState cpuState;
        try (VideoLoader cpu = VideoLoader.open(Dataset.open(data), options)) {
            var it = cpu.iterator();
            it.next().close();
            it.next().close();
            cpuState = cpu.state();
        }
        List<Delivered> uninterrupted = new ArrayList<>();
        SamplerState gpuState = null;
        try (NvdecLoader loader = withCpuSessions(new FakeDevice(true), options, LoaderFront.start(Dataset.open(data), options))) {
            for (DeviceBatch b : loader) {
                try (b) {
                    uninterrupted.add(copy(b));
                }
                if (uninterrupted.size() == 2) {
                    gpuState = loader.state();
                }
            }
        }
        assertThat(gpuState).isEqualTo(cpuState);
        List<Delivered> resumed = new ArrayList<>();
        try (NvdecLoader loader = withCpuSessions(new FakeDevice(true), options,
                LoaderFront.resume(Dataset.open(data), options, gpuState))) {
            for (DeviceBatch b : loader) {
                try (b) {
                    resumed.add(copy(b));
                }
            }
        }
        List<Delivered> rest = uninterrupted.subList(2, uninterrupted.size());
        assertThat(resumed).hasSameSizeAs(rest);
        for (int i = 0; i < rest.size(); i++) {
            // Frames decoded per clip may differ: clips of one video share a decoding pass only within a run.
            assertThat(sampled(resumed.get(i).clips())).as("batch %d", i).isEqualTo(sampled(rest.get(i).clips()));
            assertThat(resumed.get(i).bytes()).as("batch %d", i).isEqualTo(rest.get(i).bytes());
        }
    }
}
