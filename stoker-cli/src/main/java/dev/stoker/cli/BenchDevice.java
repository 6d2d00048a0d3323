package dev.stoker.cli;

import dev.stoker.gpu.Cuda;
import dev.stoker.gpu.DeviceBatch;
import dev.stoker.gpu.DeviceSpec;
import dev.stoker.gpu.DeviceTransfer;
import dev.stoker.gpu.GpuDevice;
import dev.stoker.gpu.GpuUnavailableException;
import dev.stoker.gpu.PinnedMemory;
import dev.stoker.gpu.TransferOptions;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench --device}: where the batches end up. {@code cpu} (the default) leaves them in host
 * memory; {@code cuda:N} has collate write them into pinned memory and copies each to device N while the
 * next one is loaded (experimental: the GPU path has not run on hardware yet). Decoding stays on the CPU.
 */
final class BenchDevice implements AutoCloseable {
    private final DeviceSpec spec;
    private final GpuDevice device;

    private BenchDevice(DeviceSpec spec, GpuDevice device) {
        this.spec = spec;
        this.device = device;
    }

    /** Parses {@code --device}; a usage error names what was expected. */
    static DeviceSpec parse(String text, CommandSpec command) {
        try {
            return DeviceSpec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(),
                    "--device: \"" + text + "\" (expected: cpu, cuda or cuda:N)");
        }
    }

    /**
     * Fails at once, before any dataset work, when {@code spec} is a CUDA device this machine cannot give:
     * {@code --device cuda:0: libcuda.so.1 not found: no NVIDIA driver on this machine}.
     */
    static void requireAvailable(DeviceSpec spec) {
        if (!spec.isCuda()) {
            return;
        }
        String reason = Cuda.unavailableReason();
        if (reason == null) {
            try {
                Cuda.open(spec).close();
                return;
            } catch (GpuUnavailableException e) {
                reason = e.getMessage();
            }
        }
        throw new GpuUnavailableException("--device " + spec + ": " + reason);
    }

    static BenchDevice open(DeviceSpec spec) {
        if (!spec.isCuda()) {
            return new BenchDevice(spec, null);
        }
        try {
            return new BenchDevice(spec, Cuda.open(spec));
        } catch (GpuUnavailableException e) {
            throw new GpuUnavailableException("--device " + spec + ": " + e.getMessage(), e);
        }
    }

    boolean isCuda() {
        return device != null;
    }

    /** The loader: {@code cpuLoader}'s on the CPU; on a GPU one whose batches are in pinned memory. */
    VideoLoader openLoader(Dataset data, LoaderOptions options, TraceRecorder trace, Supplier<VideoLoader> cpuLoader) {
        if (device == null) {
            return cpuLoader.get();
        }
        return VideoLoader.open(data, options, trace, new PinnedMemory(device.hostAllocator()));
    }

    /** The batches as the bench consumes them: the loader's, or their copies on the device. Close before the loader. */
    Batches batches(VideoLoader loader, LoaderOptions options, TraceRecorder trace) {
        if (device == null) {
            Iterator<ClipBatch> host = loader.iterator();
            return new Batches(null, new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return host.hasNext();
                }

                @Override
                public Batch next() {
                    ClipBatch b = host.next();
                    return new Batch(b.clips(), b.clipCount(), b);
                }
            });
        }
        BatchShape shape = new BatchShape(options.batchSize(), options.frames(), options.height(), options.width(), 3,
                options.layout());
        DeviceTransfer transfer = DeviceTransfer.start(loader.iterator(), device, shape.batchBytes(),
                TransferOptions.defaults(), trace);
        return new Batches(transfer, new Iterator<>() {
            @Override
            public boolean hasNext() {
                return transfer.hasNext();
            }

            @Override
            public Batch next() {
                DeviceBatch b = transfer.next();
                return new Batch(b.clips(), b.clipCount(), b);
            }
        });
    }

    /** One delivered batch: host or device, closed the same way. */
    record Batch(List<ClipInfo> clips, int clipCount, AutoCloseable owner) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            owner.close();
        }
    }

    /** The delivered batches; closing stops the transfer (its copies finish first). */
    record Batches(DeviceTransfer transfer, Iterator<Batch> iterator) implements AutoCloseable {
        @Override
        public void close() {
            if (transfer != null) {
                transfer.close();
            }
        }
    }

    @Override
    public void close() {
        if (device != null) {
            device.close();
        }
    }

    @Override
    public String toString() {
        return spec.toString();
    }
}
