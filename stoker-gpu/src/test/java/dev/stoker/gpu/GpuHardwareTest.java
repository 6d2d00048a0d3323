package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.Video;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;


/**
 * The GPU path on a real device: pinned memory, async copies and events through the driver, the loader's
 * batches on the device byte for byte, NVDEC decoding against the CPU decoder (the same frames, pixels within
 * a tolerance), the NVDEC loader against the CPU loader, the CPU fallback. Skipped, saying why, on machines
 * without an NVIDIA driver and device (every machine this was written on).
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
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).batch(2, false, BatchLayout.NCTHW)
                .order(7, true, 1).build();
        List<byte[]> expected = new ArrayList<>();
        try (VideoLoader cpu = VideoLoader.open(Dataset.open(data), options)) {
            for (ClipBatch b : cpu) {
                try (b) {
                    expected.add(b.data().toArray(ValueLayout.JAVA_BYTE));
                }
            }
        }
        List<byte[]> actual = new ArrayList<>();
        try (GpuLoader gpu = GpuLoader.open((o, opening) -> VideoLoader.open(Dataset.open(data), o, opening), options,
                DeviceSpec.cuda(0), Opening.defaults());
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

    /**
     * NVDEC against the CPU decoder on the same clips of real videos (H.264 small and 1080p, MPEG-4 part 2,
     * VP8, VP9, full-range BT.709; the one 8-bit HEVC sample, 128x128, is under NVDEC's HEVC minimum and goes
     * to the CPU, see NvdecSupportedVideosTest): the same frames (their times), pixels within a tolerance, since the
     * kernel and swscale filter and round differently.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mmaction2_test_340x256.mp4", "mmaction2_ntu_S001C001P001R001A001_1080p.avi",
            "mmaction2_test_mpeg4_mp3.avi", "mdn_flower_vp8.webm",
            "libwebm_bbb_480p_vp9_opus_1s.webm", "torchcodec_bt709_full_range.mp4"})
    void nvdecDecodesTheCpuPathsClipsWithinATolerance(String name) {
        try (Video video = Video.open(NvdecSupportedVideosTest.sample(name));
             CudaDevice device = Cuda.open(DeviceSpec.cuda(0));
             Nv12Kernel kernel = Nv12Kernel.load(device);
             NvdecDecoder nvdec = NvdecDecoder.open(device, kernel, CLIP, true, null, null)) {
            assertThat(NvdecCodecs.unsupportedReason(video.info())).isNull();
            assertThat(decodesTheCpuPathsClips(device, nvdec, video, name).cpuFallbackReason()).isNull();
        }
    }

    /** A clip of 8 frames of 112x112, a batch of one. */
    private static final BatchShape CLIP = new BatchShape(1, 8, 112, 112, 3, BatchLayout.NCTHW);

    /**
     * Decodes two clips of {@code video} (its first 8 frames, center-cropped; 8 frames at stride 2 from its middle,
     * randomly cropped) with {@code gpu} and with the CPU path, into device memory; checks that they are the same
     * frames (indices and times) with pixels within {@link PixelTolerance}, and returns what {@code gpu} gave.
     */
    private static DeviceClipDecoder.Decoded decodesTheCpuPathsClips(CudaDevice device, DeviceClipDecoder gpu, Video video,
                                                                     String name) {
        try (DeviceMemory onGpu = device.allocate(2 * CLIP.batchBytes());
             DeviceMemory onCpu = device.allocate(2 * CLIP.batchBytes());
             CpuClipUploader cpu = new CpuClipUploader(device, CLIP, 1, true);
             Arena arena = Arena.ofConfined()) {
            double length = video.info().durationSeconds();
            Function<DeviceMemory, List<DeviceClipDecoder.Target>> into = memory -> List.of(
                    new DeviceClipDecoder.Target(ClipSpec.frames(0, 8, 1), Resize.centerCrop(112, 112, 112),
                            memory.pointer(), CLIP.batchBytes()),
                    new DeviceClipDecoder.Target(ClipSpec.frames(length / 2, 8, 2), Resize.randomCrop(128, 112, 112, 5),
                            memory.pointer() + CLIP.batchBytes(), CLIP.batchBytes()));
            DeviceClipDecoder.Decoded fromGpu = gpu.decode(video, into.apply(onGpu));
            DeviceClipDecoder.Decoded fromCpu = cpu.decode(video, into.apply(onCpu));
            for (int i = 0; i < 2; i++) {
                assertThat(fromGpu.clips().get(i).frameIndices()).isEqualTo(fromCpu.clips().get(i).frameIndices());
                assertThat(fromGpu.clips().get(i).ptsSeconds()).isEqualTo(fromCpu.clips().get(i).ptsSeconds());
            }
            MemorySegment a = arena.allocate(onGpu.byteSize());
            MemorySegment b = arena.allocate(onCpu.byteSize());
            device.copyToHost(onGpu.pointer(), a);
            device.copyToHost(onCpu.pointer(), b);
            PixelTolerance.assertWithin(a, b, name);
            return fromGpu;
        }
    }

    /**
     * Stoker's own NVDEC session (libnvcuvid through FFM: parser, decoder, the clip kernel) against the CPU decoder on
     * the same clips of the H.264 and HEVC files it covers: the same frames, pixels within the tolerance; each wanted
     * frame mapped once, at most one host wait a clip, one launch a clip; and the decode-only ceiling decodes every
     * picture asked for and maps none.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mmaction2_test_340x256.mp4", "mdn_flower_960x540.mp4", "torchcodec_bt709_full_range.mp4",
            "decord_flipping_a_pancake.mkv", "mmaction2_demo_kinetics_340x256.mp4"})
    void theNvdecSessionDecodesTheCpuPathsClipsWithinATolerance(String name) {
        try (Video video = Video.open(NvdecSupportedVideosTest.sample(name));
             CudaDevice device = Cuda.open(DeviceSpec.cuda(0));
             Nv12Kernel kernel = Nv12Kernel.load(device)) {
            Assumptions.assumeTrue(NvdecSession.covers(video), name + ": not H.264/HEVC 8-bit 4:2:0 with pts");
            DriverNvdecApi api = DriverNvdecApi.open(device, kernel);
            try (NvdecSession session = new NvdecSession(api, new NvdecCaps(api), device.id(), CLIP, true, null)) {
                DeviceClipDecoder.Decoded fromNvdec = decodesTheCpuPathsClips(device, session, video, name);
                assertThat(fromNvdec.path()).isEqualTo(DecodePath.NVDEC);
                long wanted = fromNvdec.clips().stream().mapToLong(c -> c.frameIndices().stream().distinct().count()).sum();
                assertThat(session.counters.framesMapped).as("frames mapped").isEqualTo(wanted);
                assertThat(session.counters.clipLaunches).as("kernel launches").isEqualTo(2);
                assertThat(session.counters.hostWaits).as("host waits").isBetween(1L, 2L);
                long pictures = Math.min(200, video.info().packetCount());
                long mappedBefore = session.counters.framesMapped;
                assertThat(session.decodeOnly(video, pictures)).isGreaterThanOrEqualTo(pictures);
                assertThat(session.counters.framesMapped).as("the ceiling maps nothing").isEqualTo(mappedBefore);
                assertThat(session.decoders().creations).as("one decoder for both runs").isEqualTo(1);
            }
        }
    }

    @Test
    void theNvdecLoaderDeliversTheCpuLoadersClipsOnTheDevice(@TempDir Path dir) throws IOException {
        Path data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(2, 4, 2.0)); // H.264, VP8
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).batch(3, false, BatchLayout.NTHWC)
                .order(7, true, 1).build();
        List<byte[]> expected = new ArrayList<>();
        List<List<ClipInfo>> expectedClips = new ArrayList<>();
        try (VideoLoader cpu = VideoLoader.open(Dataset.open(data), options)) {
            for (ClipBatch batch : cpu) {
                try (batch) {
                    expected.add(batch.data().toArray(ValueLayout.JAVA_BYTE));
                    expectedClips.add(batch.clips());
                }
            }
        }
        try (NvdecLoader gpu = NvdecLoader.open(Dataset.open(data), options, DeviceSpec.cuda(0),
                Opening.defaults().with(GpuDecodeOptions.defaults().withCpuFallback(false))); Arena arena = Arena.ofConfined()) {
            CudaDevice device = (CudaDevice) gpu.device();
            int i = 0;
            for (DeviceBatch batch : gpu) {
                try (batch) {
                    assertThat(batch.clips().stream().map(c -> c.path() + " " + Arrays.toString(c.frameTimestampsSeconds())))
                            .as("batch %d", i).containsExactlyElementsOf(expectedClips.get(i).stream()
                                    .map(c -> c.path() + " " + Arrays.toString(c.frameTimestampsSeconds())).toList());
                    MemorySegment host = arena.allocate(batch.byteSize());
                    device.copyToHost(batch.devicePointer(), host);
                    PixelTolerance.assertWithin(host, MemorySegment.ofArray(expected.get(i)), "batch " + i);
                }
                i++;
            }
            assertThat(i).isEqualTo(expected.size());
            assertThat(gpu.cpuFallbackClips()).isZero();
            assertThat(gpu.pipeline().failures()).isEmpty();
        }
    }

    @Test
    void aVideoNvdecCannotDecodeGoesToTheCpuOrFailsNamingWhy(@TempDir Path dir) throws IOException {
        Path rotated = NvdecSupportedVideosTest.sample("decord_rot90.mov");
        Path manifest = dir.resolve("manifest.csv");
        Files.writeString(manifest, rotated + ",0\n");
        LoaderOptions options = LoaderOptions.builder().clip(2, 1).batch(1, false, BatchLayout.NTHWC)
                .order(1, false, 1).build();
        byte[] expected;
        try (VideoLoader cpu = VideoLoader.open(Dataset.open(manifest), options)) {
            try (ClipBatch batch = cpu.iterator().next()) {
                expected = batch.data().toArray(ValueLayout.JAVA_BYTE);
            }
        }
        try (NvdecLoader gpu = NvdecLoader.open(Dataset.open(manifest), options, DeviceSpec.cuda(0),
                Opening.defaults()); Arena arena = Arena.ofConfined()) {
            try (DeviceBatch batch = gpu.iterator().next()) {
                MemorySegment host = arena.allocate(batch.byteSize());
                ((CudaDevice) gpu.device()).copyToHost(batch.devicePointer(), host);
                assertThat(host.toArray(ValueLayout.JAVA_BYTE)).as("the CPU's bytes, exactly").isEqualTo(expected);
            }
            assertThat(gpu.cpuFallbackReasons())
                    .containsExactly(Map.entry("display rotation 90 degrees (the GPU kernel does not rotate)", 1L));
        }
        try (NvdecLoader gpu = NvdecLoader.open(Dataset.open(manifest), options, DeviceSpec.cuda(0),
                Opening.defaults().with(GpuDecodeOptions.defaults().withCpuFallback(false)))) {
            assertThat(gpu.iterator().hasNext()).isFalse();
            assertThat(gpu.pipeline().failures()).singleElement().satisfies(f -> {
                assertThat(f.stage()).isEqualTo("nvdec");
                assertThat(f.item()).isEqualTo(rotated.toString());
                assertThat(f.reason()).isEqualTo("unsupported-codec");
            });
        }
    }
}
