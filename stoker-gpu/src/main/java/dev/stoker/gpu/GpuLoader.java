package dev.stoker.gpu;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.util.Iterator;

/**
 * A {@link VideoLoader} whose batches end up on a GPU: collate writes each batch into pinned host memory
 * and the {@link DeviceTransfer} stage copies it to device memory while the consumer works on the
 * previous one. Decoding stays on the CPU; {@link NvdecLoader} decodes on the GPU instead.
 *
 * <pre>{@code
 * try (GpuLoader loader = GpuLoader.open(Dataset.open(root), LoaderOptions.defaults(), DeviceSpec.parse("cuda:0"),
 *                                        TransferOptions.defaults(), null)) {
 *     for (DeviceBatch batch : loader) {
 *         try (batch) { train(batch.devicePointer(), batch.shape(), batch.labels()); }  // then sync your stream
 *     }
 * }
 * }</pre>
 *
 * <p>Experimental: written and unit-tested against a fake device; not yet run on a GPU.
 */
public final class GpuLoader implements Iterable<DeviceBatch>, AutoCloseable {
    private final GpuDevice device;
    private final VideoLoader loader;
    private final DeviceTransfer transfer;
    private boolean iterated;

    private GpuLoader(GpuDevice device, VideoLoader loader, DeviceTransfer transfer) {
        this.device = device;
        this.loader = loader;
        this.transfer = transfer;
    }

    /**
     * Opens {@code device} first, so that a machine without one fails at once, naming what is missing.
     *
     * @throws GpuUnavailableException if the device cannot be had (no driver, no device, no such device)
     */
    public static GpuLoader open(Dataset dataset, LoaderOptions options, DeviceSpec device, TransferOptions transfer,
                                 TraceRecorder trace) {
        return open(dataset, options, Cuda.open(device), transfer, trace);
    }

    /** Opens the loader on {@code device}, which it then owns (closes). */
    public static GpuLoader open(Dataset dataset, LoaderOptions options, GpuDevice device, TransferOptions transfer,
                                 TraceRecorder trace) {
        VideoLoader loader = null;
        try {
            LoaderOptions pinned = options.batch().budgetBytes() > 0 ? options : options.toBuilder().batchBudget(batchBudgetBytes(options)).build();
            loader = VideoLoader.open(dataset, pinned, trace, new PinnedMemory(device.hostAllocator()));
            DeviceTransfer t = DeviceTransfer.start(loader.iterator(), device, batchShape(options).batchBytes(), transfer, trace);
            return new GpuLoader(device, loader, t);
        } catch (RuntimeException | Error e) {
            if (loader != null) {
                loader.close();
            }
            device.close();
            throw e;
        }
    }

    /**
     * The loader's default batch budget (the sink, the collators, the consumer's and a spare) plus the
     * host buffers the transfer holds while their copies run.
     */
    static long batchBudgetBytes(LoaderOptions options) {
        PipelineConfig config = VideoLoader.defaultConfig(Runtime.getRuntime().availableProcessors())
                .overriddenBy(options.config());
        int sink = config.sinkCapacity() == null ? 4 : config.sinkCapacity();
        StageConfig collate = config.stage("collate");
        int collators = collate == null || collate.concurrency() == null ? 1 : collate.concurrency();
        return (sink + collators + 2L + DeviceTransfer.COPIES_HOLDING_HOST) * batchShape(options).batchBytes();
    }

    private static BatchShape batchShape(LoaderOptions options) {
        return new BatchShape(options.batch().size(), options.clip().frames(), options.size().height(), options.size().width(), 3, options.batch().layout());
    }

    /** Device batches of every epoch, in the loader's order. One iteration per loader. */
    @Override
    public Iterator<DeviceBatch> iterator() {
        if (iterated) {
            throw new IllegalStateException("GpuLoader iterates once (expected: one iterator() per loader)");
        }
        iterated = true;
        return transfer;
    }

    /** The CPU loader underneath: its pipeline's stats, failures, resume state. */
    public VideoLoader loader() {
        return loader;
    }

    public DeviceTransfer transfer() {
        return transfer;
    }

    public GpuDevice device() {
        return device;
    }

    /** Stops the transfer (waiting for its copies), then the loader, then releases the device. */
    @Override
    public void close() {
        try {
            transfer.close();
        } finally {
            try {
                loader.close();
            } finally {
                device.close();
            }
        }
    }
}
