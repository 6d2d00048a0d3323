package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.Video;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * Hybrid decoding: NVDEC sessions and CPU workers taking videos from one queue.
 * <ul>
 *   <li>On a model clock: each pool's time for a video is what the fakes model (a real {@link NvdecSession} on
 *       {@link FakeNvdecApi}'s engines; the CPU at a fixed cost a decoded frame and pixel), and the loader's queueing
 *       ({@link HybridQueue}, with the decode stage's videos in flight) is run as events: the hybrid rate is at least
 *       0.95 of the NVDEC pool's rate plus the CPU pool's, and the costly videos go to NVDEC.</li>
 *   <li>On threads, as the loader runs it (fake device, the fake decode API, real CPU decoding): the same clips in the
 *       same order as the CPU loader, each clip saying which pool decoded it, both pools used, the CPU pool's clips
 *       byte for byte the CPU loader's, and the pools' rows for the stage table.</li>
 * </ul>
 */
@Timeout(300)
class HybridDecodingTest {
    @TempDir
    static Path dir;
    static Path data;

    @BeforeAll
    static void makeData() throws IOException {
        data = DemoDataset.create(dir.resolve("data"), DemoSpec.small(3, 4, 2.0));
    }

    /** A video of the model: what it costs each pool, in model nanoseconds. */
    record Work(String name, long nvdecNanos, long cpuNanos, double cost) {
    }

    @Test
    void aClipsSpatialCropsAreOneDecodeToTheRouter() throws IOException {
        // Three crops of a clip share its spec and decode once (ClipDecoder and the NVDEC session decode a frame once
        // for every clip that wants it): routing must not take them for three clips' work.
        try (Video video = Video.open(Dataset.open(data).entries().getFirst().path())) {
            ClipSpec spec = ClipSpec.frames(video.info().durationSeconds() / 3, 8, 2);
            Resize centre = Resize.centerCrop(128, 112, 112);
            List<DeviceClipDecoder.Target> crops = new ArrayList<>();
            for (int crop = 0; crop < 3; crop++) {
                crops.add(new DeviceClipDecoder.Target(spec, centre.spatialCrop(crop, 3), 0x10_0000, 1));
            }
            double one = HybridDecoding.cost(video, crops.subList(0, 1));
            assertThat(one).isPositive();
            assertThat(HybridDecoding.cost(video, crops)).isEqualTo(one);
            crops.add(new DeviceClipDecoder.Target(ClipSpec.frames(0, 8, 2), centre, 0x10_0000, 1));
            assertThat(HybridDecoding.cost(video, crops)).as("another clip is more work").isGreaterThan(one);
        }
    }

    @Test
    void onTheModelClockTheHybridRateIsBothPoolsRatesTogether() throws IOException {
        BatchShape clip = new BatchShape(1, 8, 112, 112, 3, BatchLayout.NCTHW);
        // A decoded frame costs a CPU worker 3 ms (decode, convert, copy up): with the fake's 1.5 ms a picture on an
        // engine, the two pools are of one order, as on the H100 with Kinetics-sized clips once NVDEC is fed.
        long cpuNanosPerFrame = 3_000_000;
        List<Work> videos = new ArrayList<>();
        FakeNvdecApi api = new FakeNvdecApi(7, 1_500_000, 2);
        try (NvdecSession session = new NvdecSession(api, new NvdecCaps(api), "fake:0", clip, true, null)) {
            for (VideoEntry entry : Dataset.open(data).entries()) {
                try (Video video = Video.open(entry.path())) {
                    if (!NvdecSession.covers(video)) {
                        continue;
                    }
                    List<DeviceClipDecoder.Target> targets = List.of(new DeviceClipDecoder.Target(
                            ClipSpec.frames(video.info().durationSeconds() / 3, 8, 2), Resize.centerCrop(112, 112, 112),
                            0x10_0000, clip.batchBytes()));
                    long t0 = api.now();
                    DeviceClipDecoder.Decoded decoded = session.decode(video, targets);
                    long nvdecNanos = api.now() - t0;
                    long frames = decoded.clips().getFirst().decodedFrames();
                    long cpuNanos = frames * cpuNanosPerFrame;
                    videos.add(new Work(entry.path().getFileName().toString(), nvdecNanos, cpuNanos,
                            HybridDecoding.cost(video, targets)));
                }
            }
        }
        assertThat(videos).hasSizeGreaterThan(5);
        assertThat(api.violations).isEmpty();
        List<Work> epochs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            epochs.addAll(videos);
        }
        int sessions = 3;
        int cpuWorkers = 4;
        double nvdecRate = simulate(epochs, sessions, 0).rate();
        double cpuRate = simulate(epochs, 0, cpuWorkers).rate();
        Simulation hybrid = simulate(epochs, sessions, cpuWorkers);
        assertThat(hybrid.rate()).as("videos per model second: NVDEC %.1f, CPU %.1f, hybrid", nvdecRate, cpuRate)
                .isGreaterThanOrEqualTo(0.95 * (nvdecRate + cpuRate));
        assertThat(hybrid.byPool().get(HybridQueue.Pool.NVDEC)).isPositive();
        assertThat(hybrid.byPool().get(HybridQueue.Pool.CPU)).isPositive();
    }

    @Test
    void theCostlyVideosGoToNvdecAndTheCheapOnesToTheCpu() {
        HybridQueue<String> queue = new HybridQueue<>();
        queue.put("340x256, 40 frames", 340 * 256 * 40.0);
        queue.put("1080p, 40 frames", 1920 * 1080 * 40.0);
        queue.put("340x256, 140 frames", 340 * 256 * 140.0);
        assertThat(queue.poll(HybridQueue.Pool.NVDEC)).isEqualTo("1080p, 40 frames");
        assertThat(queue.poll(HybridQueue.Pool.CPU)).isEqualTo("340x256, 40 frames");
        assertThat(queue.poll(HybridQueue.Pool.CPU)).isEqualTo("340x256, 140 frames");
        assertThat(queue.poll(HybridQueue.Pool.NVDEC)).isNull();
        queue.put("a", 1);
        queue.put("b", 1);
        assertThat(queue.poll(HybridQueue.Pool.NVDEC)).as("equal costs: the oldest").isEqualTo("a");
    }

    record Simulation(double rate, Map<HybridQueue.Pool, Integer> byPool) {
    }

    /**
     * The hybrid decode stage on a model clock: at most as many videos in the stage as it has workers (twice the
     * pools'), queued in input order; a free worker of a pool takes what {@link HybridQueue} gives that pool.
     */
    static Simulation simulate(List<Work> videos, int sessions, int cpuWorkers) {
        HybridQueue<Work> queue = new HybridQueue<>();
        int inStage = 2 * (sessions + cpuWorkers);
        PriorityQueue<long[]> finishing = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));   // {time, pool}
        int[] free = {sessions, cpuWorkers};
        Map<HybridQueue.Pool, Integer> byPool = new EnumMap<>(HybridQueue.Pool.class);
        int next = 0;
        int inFlight = 0;
        long now = 0;
        int done = 0;
        while (done < videos.size()) {
            while (inFlight < inStage && next < videos.size()) {
                Work w = videos.get(next++);
                queue.put(w, w.cost());
                inFlight++;
            }
            for (HybridQueue.Pool pool : HybridQueue.Pool.values()) {
                while (free[pool.ordinal()] > 0) {
                    Work w = queue.poll(pool);
                    if (w == null) {
                        break;
                    }
                    free[pool.ordinal()]--;
                    byPool.merge(pool, 1, Integer::sum);
                    long took = pool == HybridQueue.Pool.NVDEC ? w.nvdecNanos() : w.cpuNanos();
                    finishing.add(new long[] {now + took, pool.ordinal()});
                }
            }
            long[] f = finishing.poll();
            now = f[0];
            free[(int) f[1]]++;
            inFlight--;
            done++;
        }
        return new Simulation(videos.size() / (now / 1e9), byPool);
    }

    @Test
    void theHybridLoaderDeliversTheCpuLoadersClipsSayingWhichPoolDecodedEach() throws IOException {
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(16, 16, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(3, false, BatchLayout.NTHWC).order(5, true, 3).decodeOn(DecodeDevice.HYBRID, 2).build();
        List<byte[]> expected = new ArrayList<>();
        List<List<String>> expectedClips = new ArrayList<>();
        for (var b : NvdecLoaderMatchesCpuLoaderTest.cpuBatches(data, options)) {
            expectedClips.add(NvdecLoaderMatchesCpuLoaderTest.sampled(b.clips()));
            expected.add(b.bytes());
        }
        FakeNvdecApi api = new FakeNvdecApi(7, 2_000_000, 2);
        NvdecCaps caps = new NvdecCaps(api);
        FakeDevice device = new FakeDevice(true);
        BatchShape clip = new BatchShape(1, 4, 16, 16, 3, BatchLayout.NTHWC);
        Map<DecodePath, Integer> paths = new EnumMap<>(DecodePath.class);
        int batches = 0;
        long clipBytes = clip.clipBytes();
        try (NvdecLoader loader = NvdecLoader.openHybrid(Dataset.open(data), options, device, 2,
                () -> new NvdecRouter(new NvdecSession(api, caps, "fake:0", clip, true, null),
                        () -> new CpuClipUploader(device, clip, 1, true), null),
                2, () -> new CpuClipUploader(device, clip, 1, true), null,
                LoaderFront.start(Dataset.open(data), options), null)) {
            assertThat(loader.pipeline().config().stages().keySet()).containsExactlyElementsOf(LoaderStage.names(NvdecLoader.HYBRID_STAGES));
            for (DeviceBatch b : loader) {
                try (b) {
                    assertThat(NvdecLoaderMatchesCpuLoaderTest.sampled(b.clips())).as("batch " + batches)
                            .isEqualTo(expectedClips.get(batches));
                    assertThat(b.decodePaths()).hasSize(b.clipCount());
                    for (int k = 0; k < b.clipCount(); k++) {
                        DecodePath path = b.decodePaths().get(k);
                        paths.merge(path, 1, Integer::sum);
                        if (path == DecodePath.CPU) {
                            MemorySegment slot = FakeDevice.deviceBytes(b.devicePointer() + k * clipBytes, clipBytes);
                            assertThat(slot.toArray(ValueLayout.JAVA_BYTE)).as("batch %d clip %d, decoded on the CPU",
                                    batches, k).isEqualTo(java.util.Arrays.copyOfRange(expected.get(batches),
                                    (int) (k * clipBytes), (int) ((k + 1) * clipBytes)));
                        }
                    }
                }
                batches++;
            }
            assertThat(batches).isEqualTo(expected.size());
            assertThat(loader.pipeline().failures()).isEmpty();
            List<DecodePoolStats> pools = loader.decodePools();
            assertThat(pools).extracting(DecodePoolStats::name).containsExactly("nvdec", "cpu");
            assertThat(pools.stream().mapToLong(DecodePoolStats::clips).sum()).isEqualTo(
                    paths.values().stream().mapToInt(Integer::intValue).sum());
            assertThat(pools.getFirst().line()).startsWith("pool nvdec     2 workers");
            Map<DecodePath, Long> counted = new EnumMap<>(DecodePath.class);
            paths.forEach((path, n) -> counted.put(path, (long) n));
            assertThat(loader.clipsByPath()).isEqualTo(counted);
        }
        assertThat(paths).as("both pools decoded").containsKeys(DecodePath.NVDEC, DecodePath.CPU);
        assertThat(api.violations).isEmpty();
        assertThat(device.deviceMemory).as("every device buffer freed").isEmpty();
    }
}
