package dev.stoker.gpu;

import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.HostLoaderFactory;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.TraceRecorder;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * A host loader whose batches end up on a GPU, whatever it loads from (video files, shards): its collate writes each
 * batch into pinned host memory and the {@link DeviceTransfer} stage copies it to device memory while the consumer
 * works on the previous one. Decoding stays on the CPU; {@link NvdecLoader} decodes on the GPU instead.
 *
 * <pre>{@code
 * try (GpuLoader loader = GpuLoader.open(Loaders.hostFactory(location), LoaderOptions.defaults(),
 *                                        DeviceSpec.parse("cuda:0"), Opening.defaults())) {
 *     for (DeviceBatch batch : loader) {
 *         try (batch) { train(batch.devicePointer(), batch.shape(), batch.labels()); }  // then sync your stream
 *     }
 * }
 * }</pre>
 *
 * <p>A {@link ClipLoader}: its {@link #state()} is the state after the last device batch handed out (the transfer
 * runs ahead of the consumer, so the host loader's own state would be ahead too); {@link #nextEpoch()} copies one
 * epoch at a time (close that epoch's batches before asking for the next: a new epoch's transfer replaces the
 * last one's device buffers).
 *
 * <p>Experimental: unit-tested against a fake device; measured once on an H100 (docs/benchmarks.md, "GPU").
 */
public final class GpuLoader extends DeviceBatchLoader<ClipBatch> {
    private final HostBatchLoader loader;
    private final Function<Iterator<ClipBatch>, DeviceTransfer> transferToDevice;
    /** The host loader's state after each host batch the transfer took, in order: a device batch's, once delivered. */
    private final Queue<SamplerState> statesInTransfer = new ConcurrentLinkedQueue<>();
    private DeviceTransfer transfer;

    private GpuLoader(GpuDevice device, HostBatchLoader loader,
                      Function<Iterator<ClipBatch>, DeviceTransfer> transferToDevice) {
        super(device, loader, loader::nextEpoch, loader.state());
        this.loader = loader;
        this.transferToDevice = transferToDevice;
    }

    /**
     * Opens {@code device} first, so that a machine without one fails at once, naming what is missing; then the host
     * loader {@code host} opens as {@code opening} says (from the start or resumed from a state: the same clips, times,
     * crops and batches next), its batches in pinned memory, copied as the opening's {@link TransferOptions} say
     * ({@link TransferOptions#defaults()} without them).
     *
     * @throws GpuUnavailableException if the device cannot be had (no driver, no device, no such device)
     * @throws IOException if the host loader's dataset cannot be read
     */
    public static GpuLoader open(HostLoaderFactory host, LoaderOptions options, DeviceSpec device, Opening opening)
            throws IOException {
        return open(host, options, Cuda.open(device), opening);
    }

    /** {@link #open(HostLoaderFactory, LoaderOptions, DeviceSpec, Opening)} on {@code device}, which it then owns. */
    static GpuLoader open(HostLoaderFactory host, LoaderOptions options, GpuDevice device, Opening opening)
            throws IOException {
        HostBatchLoader loader = null;
        try {
            // The pool holds the batches whose copies still run besides the consumer's one (the transfer's).
            loader = host.open(options, opening.batchesIn(new PinnedMemory(device.hostAllocator()))
                    .consumerHolding(1 + DeviceTransfer.COPIES_HOLDING_HOST));
            long batchBytes = options.batchShape().batchBytes();
            TransferOptions transfer = opening.setting(TransferOptions.class, TransferOptions.defaults());
            TraceRecorder trace = opening.trace().orElse(null);
            return new GpuLoader(device, loader,
                    hostBatches -> DeviceTransfer.start(hostBatches, device, batchBytes, transfer, trace));
        } catch (IOException | RuntimeException | Error e) {
            if (loader != null) {
                loader.close();
            }
            device.close();
            throw e;
        }
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

    /** Notes the host loader's state after {@code batch}: its device batch's state, once delivered. */
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
    public List<String> classNames() { return loader.classNames(); }

    @Override
    public List<? extends LoaderStage> stages() { return loader.stages(); }

    @Override
    public EpochSampler sampler() { return loader.sampler(); }

    /** The host loader's pipeline: stats, failures (path, stage, reason), effective config. */
    @Override
    public Pipeline<?> pipeline() { return loader.pipeline(); }

    @Override
    public long decodedClips() { return loader.decodedClips(); }

    @Override
    public long decodedFrames() { return loader.decodedFrames(); }

    /** The host loader underneath. */
    public HostBatchLoader loader() { return loader; }

    /** The running transfer (null before the first iteration). */
    public synchronized DeviceTransfer transfer() { return transfer; }

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
