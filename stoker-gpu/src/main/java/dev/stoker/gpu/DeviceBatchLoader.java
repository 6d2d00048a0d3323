package dev.stoker.gpu;

import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.dataset.SamplerState;
import java.util.Iterator;
import java.util.function.Supplier;

/**
 * A loader whose batches end in device memory ({@link GpuLoader}, {@link NvdecLoader}): what its pipeline
 * delivers (host batches to copy up, batches collated on the device) becomes {@link DeviceBatch}es, every
 * epoch through one iteration or one epoch at a time, and the resume state follows the batches handed out.
 *
 * @param <H> what the pipeline underneath delivers
 */
abstract sealed class DeviceBatchLoader<H> implements ClipLoader<DeviceBatch> permits GpuLoader, NvdecLoader {
    private final GpuDevice device;
    private final Iterable<H> everyEpoch;
    private final Supplier<Iterable<H>> nextEpoch;
    private volatile SamplerState state;
    private boolean iterated;

    /**
     * @param everyEpoch what the pipeline delivers over every epoch (iterated once)
     * @param nextEpoch  what it delivers over its next epoch only
     * @param start      the resume state before the first batch
     */
    DeviceBatchLoader(GpuDevice device, Iterable<H> everyEpoch, Supplier<Iterable<H>> nextEpoch, SamplerState start) {
        this.device = device;
        this.everyEpoch = everyEpoch;
        this.nextEpoch = nextEpoch;
        this.state = start;
    }

    /** {@code delivered} as device batches; each one handed out calls {@link #handedOut} with its state. */
    abstract Iterator<DeviceBatch> onDevice(Iterator<H> delivered);

    /** Device batches of every epoch, in the loader's order. One iteration per loader. */
    @Override
    public final Iterator<DeviceBatch> iterator() {
        if (iterated) {
            throw new IllegalStateException(getClass().getSimpleName() + " iterates once (expected: one iterator() per loader)");
        }
        iterated = true;
        return onDevice(everyEpoch.iterator());
    }

    /** Device batches of the next epoch only; close them before asking for the next epoch. */
    @Override
    public final Iterable<DeviceBatch> nextEpoch() {
        Iterable<H> epoch = nextEpoch.get();
        return () -> onDevice(epoch.iterator());
    }

    /** Moves the resume state to {@code after}, the state after the batch being handed out. */
    final void handedOut(SamplerState after) {
        state = after;
    }

    /**
     * Where the consumer stands: the state after the last batch handed out (the start state before the
     * first); the loader's {@code resume} continues from it. Cheap; any thread.
     */
    @Override
    public final SamplerState state() { return state; }

    /** The device the batches are on. */
    public final GpuDevice device() { return device; }
}
