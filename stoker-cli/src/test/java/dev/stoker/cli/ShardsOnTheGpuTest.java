package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.gpu.Cuda;
import dev.stoker.gpu.DeviceBatch;
import dev.stoker.gpu.FakeGpu;
import dev.stoker.gpu.GpuLoader;
import dev.stoker.gpu.GpuUnavailableException;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.HostLoaderFactory;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Loaders;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.loader.ShardLoader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU path wraps any host loader, so shards go to a GPU as video files do: the GPU loader over the shard loader
 * the front door opens delivers the shard loader's batches, clip for clip and byte for byte, in device memory (a fake
 * device of off-heap memory here), its state following the consumer and resuming exactly; {@code Loaders.onDevice}
 * takes shards to a CUDA device (or, without one, says what is missing), and refuses to decode shards on NVDEC.
 */
class ShardsOnTheGpuTest {
    @TempDir
    static Path dir;
    static String shards;

    @BeforeAll
    static void ingest() throws IOException {
        Path dest = dir.resolve("shards");
        Ingest.run(Dataset.open(CliRun.sharedDemoData(2, 3, 2)), dest,
                IngestOptions.defaults().withFormat(IngestOptions.Format.VIDEO).withShortSide(96).withShardSize(64L << 10),
                2, IngestListener.NONE);
        shards = dest.toString();
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 96)
                .batch(2, false, BatchLayout.NCTHW).order(3, true, 2).build();
    }

    /** A batch as text: each clip's source and first frame time, and a checksum of its pixels. */
    private static String describe(List<ClipInfo> clips, MemorySegment pixels) {
        CRC32 crc = new CRC32();
        crc.update(pixels.asByteBuffer());
        return clips.stream().map(c -> c.path().getFileName() + "@" + c.frameTimestampsSeconds()[0]).toList()
                + " #" + Long.toHexString(crc.getValue());
    }

    @Test
    void theGpuLoaderOverTheShardLoaderDeliversItsBatchesOnTheDevice() throws IOException {
        List<String> host = new ArrayList<>();
        List<SamplerState> hostStates = new ArrayList<>();
        try (HostBatchLoader loader = Loaders.open(shards, options())) {
            for (ClipBatch b : loader) {
                try (b) {
                    host.add(describe(b.clips(), b.data()));
                    hostStates.add(loader.state());
                }
            }
        }
        List<String> onDevice = new ArrayList<>();
        HostLoaderFactory shardLoader = Loaders.hostFactory(shards);
        try (GpuLoader gpu = FakeGpu.loader(shardLoader, options(), Opening.defaults())) {
            assertThat(gpu.loader()).isInstanceOf(ShardLoader.class);
            assertThat(gpu.classNames()).hasSize(2);
            for (DeviceBatch b : gpu) {
                try (b) {
                    onDevice.add(describe(b.clips(), FakeGpu.bytes(b)));
                    assertThat(gpu.state()).as("after device batch " + onDevice.size())
                            .isEqualTo(hostStates.get(onDevice.size() - 1));
                }
            }
            assertThat(gpu.failures()).isEmpty();
        }
        assertThat(onDevice).isEqualTo(host).hasSize(6);

        List<String> rest = new ArrayList<>();
        try (GpuLoader resumed = FakeGpu.loader(shardLoader, options(), Opening.defaults().resumingFrom(hostStates.get(1)))) {
            for (DeviceBatch b : resumed) {
                try (b) {
                    rest.add(describe(b.clips(), FakeGpu.bytes(b)));
                }
            }
        }
        assertThat(rest).isEqualTo(host.subList(2, host.size()));
    }

    @Test
    void theFrontDoorTakesShardsToACudaDeviceOrNamesWhatIsMissing() throws IOException {
        String missing = Cuda.unavailableReason();
        if (missing == null) {   // a GPU machine: the shard loader's batches, copied to it
            try (ClipLoader<? extends LoadedBatch> loader = Loaders.onDevice(DeviceSpec.cuda(0), shards, options(),
                    Opening.defaults())) {
                assertThat(loader).isInstanceOfSatisfying(GpuLoader.class,
                        gpu -> assertThat(gpu.loader()).isInstanceOf(ShardLoader.class));
                assertThat(loader.iterator().next().clipCount()).isEqualTo(2);
            }
        } else {
            assertThatThrownBy(() -> Loaders.onDevice(DeviceSpec.cuda(0), shards, options(), Opening.defaults()))
                    .isInstanceOf(GpuUnavailableException.class).hasMessageContaining(missing);
        }
    }

    @Test
    void shardsAreNotDecodedOnNvdec() {
        for (DecodeDevice mode : new DecodeDevice[] {DecodeDevice.NVDEC, DecodeDevice.HYBRID}) {
            LoaderOptions onGpu = options().toBuilder().decodeOn(mode, 0).build();
            assertThatThrownBy(() -> Loaders.onDevice(DeviceSpec.cuda(0), shards, onGpu, Opening.defaults()))
                    .isInstanceOf(InvalidValueException.class)
                    .hasMessageStartingWith("decode.device: " + mode + " with shards written by stoker ingest")
                    .hasMessageContaining("(expected: cpu: NVDEC decodes video files");
        }
    }
}
