package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU path on a real device: pinned memory, async copies and events through the driver, the loader's
 * batches on the device byte for byte, NVDEC decoding into a device batch. Skipped, saying why, on
 * machines without an NVIDIA driver and device (every machine this was written on).
 */
@Timeout(120)
class GpuHardwareTest {

    @BeforeEach
    void needsAGpu() {
        Assumptions.assumeTrue(Cuda.available(), () -> "needs an NVIDIA GPU and driver: " + Cuda.unavailableReason());
    }

    @Test
    void pinnedMemoryGoesToTheDeviceAndBackIntact() {
        try (CudaDevice device = Cuda.open(DeviceSpec.cuda(0));
             GpuStream stream = device.createStream();
             DeviceMemory onDevice = device.allocate(1 << 20);
             Arena arena = Arena.ofConfined()) {
            MemorySegment pinned = device.hostAllocator().allocate(1 << 20);
            try {
                for (long i = 0; i < pinned.byteSize(); i++) {
                    pinned.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
                }
                GpuEvent started = stream.record();
                stream.copyToDeviceAsync(pinned, onDevice.pointer());
                GpuEvent copied = stream.record();
                copied.await();
                assertThat(copied.isComplete()).isTrue();
                assertThat(copied.elapsedMillisSince(started)).isGreaterThanOrEqualTo(0);
                started.close();
                copied.close();
                MemorySegment back = arena.allocate(pinned.byteSize());
                device.copyToHost(onDevice.pointer(), back);
                assertThat(back.mismatch(pinned)).isEqualTo(-1);
            } finally {
                device.hostAllocator().free(pinned);
            }
        }
    }

    @Test
    void theGpuLoaderDeliversTheCpuLoadersBatchesOnTheDevice(@TempDir Path dir) throws IOException {
        Path data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 2, 2.0));
        LoaderOptions options = LoaderOptions.defaults().withClip(4, 2).withBatch(2, false, BatchLayout.NCTHW)
                .withOrder(7, true, 1);
        List<byte[]> expected = new ArrayList<>();
        try (VideoLoader cpu = VideoLoader.open(Dataset.open(data), options)) {
            for (ClipBatch b : cpu) {
                try (b) {
                    expected.add(b.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        List<byte[]> actual = new ArrayList<>();
        try (GpuLoader gpu = GpuLoader.open(Dataset.open(data), options, DeviceSpec.cuda(0), TransferOptions.defaults(), null);
             Arena arena = Arena.ofConfined()) {
            CudaDevice device = (CudaDevice) gpu.device();
            for (DeviceBatch b : gpu) {
                try (b) {
                    MemorySegment host = arena.allocate(b.byteSize());
                    device.copyToHost(b.devicePointer(), host);
                    actual.add(host.toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i)).as("batch " + i).isEqualTo(expected.get(i));
        }
    }

    @Test
    void nvdecDecodesFramesIntoADeviceBatch(@TempDir Path dir) throws IOException {
        Path data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(1, 1, 2.0));
        Path video;
        try (Stream<Path> files = Files.walk(data)) {
            video = files.filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        }
        int frames = 4;
        int size = 64;
        try (CudaDevice device = Cuda.open(DeviceSpec.cuda(0));
             DeviceMemory batch = device.allocate(3L * frames * size * size);
             NvdecDecoder decoder = NvdecDecoder.open(video, device);
             Arena arena = Arena.ofConfined()) {
            assertThat(decoder.decoderName()).isEqualTo("h264_cuvid");
            int decoded = decoder.decodeClip(new int[] {0, 2, 4, 6}, batch.pointer(), BatchLayout.NTHWC, 0, size, size);
            assertThat(decoded).isGreaterThanOrEqualTo(7);
            MemorySegment host = arena.allocate(batch.byteSize());
            device.copyToHost(batch.pointer(), host);
            long sum = 0;
            for (long i = 0; i < host.byteSize(); i++) {
                sum += Byte.toUnsignedInt(host.get(ValueLayout.JAVA_BYTE, i));
            }
            double mean = (double) sum / host.byteSize();
            assertThat(mean).as("mean pixel value of the synthetic scene").isBetween(10.0, 245.0);
        }
    }
}
