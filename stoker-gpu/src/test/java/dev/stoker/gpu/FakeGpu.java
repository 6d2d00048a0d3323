package dev.stoker.gpu;

import dev.stoker.loader.HostLoaderFactory;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * GPU loaders on a device made of off-heap memory ({@link FakeDevice}, its copies run as they are queued), for the
 * tests of the modules above stoker-gpu (in its test-jar): what a GPU loader does over a host loader of theirs, run
 * without a GPU, with the device's bytes readable.
 */
public final class FakeGpu {
    private FakeGpu() {
    }

    /** {@link GpuLoader#open} over {@code host} on a fake device, which the loader owns. */
    public static GpuLoader loader(HostLoaderFactory host, LoaderOptions options, Opening opening) throws IOException {
        return GpuLoader.open(host, options, new FakeDevice(true), opening);
    }

    /** What {@code batch} holds in the fake device's memory. */
    public static MemorySegment bytes(DeviceBatch batch) {
        return FakeDevice.deviceBytes(batch.devicePointer(), batch.byteSize());
    }
}
