package dev.stoker.gpu;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.video.loader.VideoLoader;
import java.util.Iterator;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

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
 * <p>A {@link ClipLoader}: its {@link #state()} is the state after the last device batch handed out (the transfer
 * runs ahead of the consumer, so the CPU loader's own state would be ahead too); {@link #nextEpoch()} copies one
 * epoch at a time (close that epoch's batches before asking for the next: a new epoch's transfer replaces the
 * last one's device buffers).
 *
 * <p>Experimental: written and unit-tested against a fake device; not yet run on a GPU.
 */
public final class GpuLoader extends DeviceBatchLoader<ClipBatch> {
    private final VideoLoader loader;
    private final Function<Iterator<ClipBatch>, DeviceTransfer> transferToDevice;
    /** The CPU loader's state after each host batch the transfer took, in order: a device batch's, once delivered. */
    private final Queue<SamplerState> statesInTransfer = new ConcurrentLinkedQueue<>();
    private DeviceTransfer transfer;

    private GpuLoader(GpuDevice device, VideoLoader loader, Function<Iterator<ClipBatch>, DeviceTransfer> transferToDevice) {
        super(device, loader, loader::nextEpoch, loader.state());
        this.loader = loader;
        this.transferToDevice = transferToDevice;
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
        return open(dataset, options, null, device, transfer, trace);
    }

    /**
     * Continues where the loader that gave {@code state} ({@link #state()}) stood, as
     * {@link VideoLoader#resume} does: the same clips, times, crops and batches next.
     *
     * @throws IllegalArgumentException if the dataset's fingerprint or the sampling settings differ from the state's
     */
    public static GpuLoader resume(Dataset dataset, LoaderOptions options, SamplerState state, GpuDevice device,
                                   TransferOptions transfer, TraceRecorder trace) {
        return open(dataset, options, Objects.requireNonNull(state, "state"), device, transfer, trace);
    }

    private static GpuLoader open(Dataset dataset, LoaderOptions options, SamplerState from, GpuDevice device,
                                  TransferOptions transfer, TraceRecorder trace) {
        VideoLoader loader = null;
        try {
            LoaderOptions pinned = options.batch().budgetBytes() > 0 ? options
                    : options.toBuilder().batchBudget(batchBudgetBytes(options)).build();
            PinnedMemory memory = new PinnedMemory(device.hostAllocator());
            loader = from == null ? VideoLoader.open(dataset, pinned, trace, memory)
                    : VideoLoader.resume(dataset, pinned, from, trace, memory);
            long batchBytes = options.batchShape().batchBytes();
            return new GpuLoader(device, loader,
                    hostBatches -> DeviceTransfer.start(hostBatches, device, batchBytes, transfer, trace));
        } catch (RuntimeException | Error e) {
            if (loader != null) {
                loader.close();
            }
            device.close();
            throw e;
        }
    }

    /** The loader's batch budget ({@link MemoryPlan}) plus the host buffers the transfer holds while their copies run. */
    static long batchBudgetBytes(LoaderOptions options) {
        MemoryPlan plan = MemoryPlan.of(options, VideoLoader.defaultConfig(Runtime.getRuntime().availableProcessors()));
        return plan.batchPoolBytes() + DeviceTransfer.COPIES_HOLDING_HOST * options.batchShape().batchBytes();
    }

    /** A transfer of {@code hostBatches} to the device (replacing the last one), following the resume state. */
    @Override
    synchronized Iterator<DeviceBatch> onDevice(Iterator<ClipBatch> hostBatches) {
        if (transfer != null) {
            transfer.close();
        }
        DeviceTransfer started = transferToDevice.apply(new MappingIterator<>(hostBatches, this::noteState));
        transfer = started;
        return new MappingIterator<>(started, this::deliver);
    }

    /** Notes the CPU loader's state after {@code batch}: its device batch's state, once delivered. */
    private ClipBatch noteState(ClipBatch batch) {
        statesInTransfer.add(loader.state());
        return batch;
    }

    private DeviceBatch deliver(DeviceBatch batch) {
        SamplerState after = statesInTransfer.poll();
        if (after != null) {
            handedOut(after);
        }
        return batch;
    }

    @Override
    public EpochSampler sampler() {
        return loader.sampler();
    }

    /** The CPU loader's pipeline: stats, failures (path, stage, reason), effective config. */
    @Override
    public Pipeline<?> pipeline() {
        return loader.pipeline();
    }

    @Override
    public long decodedClips() {
        return loader.decodedClips();
    }

    @Override
    public long decodedFrames() {
        return loader.decodedFrames();
    }

    /** The CPU loader underneath. */
    public VideoLoader loader() {
        return loader;
    }

    /** The running transfer (null before the first iteration). */
    public synchronized DeviceTransfer transfer() {
        return transfer;
    }

    /** Stops the transfer (waiting for its copies), then the loader, then releases the device. */
    @Override
    public void close() {
        try {
            synchronized (this) {
                if (transfer != null) {
                    transfer.close();
                }
            }
        } finally {
            try {
                loader.close();
            } finally {
                device().close();
            }
        }
    }
}
