package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.SamplerState;
import java.util.List;

/**
 * A batch the NVDEC loader's collate stage assembled in a device batch buffer, on its way to the consumer,
 * who receives it as a {@link DeviceBatch}. {@code after} is the loader's resume state once it is
 * delivered. {@link #close()} destroys the event and gives the buffer back (idempotent).
 */
record CollatedDeviceBatch(DeviceBufferPool.Buffer buffer, long bytes, long[] shape, BatchLayout layout, int[] labels,
                           List<ClipInfo> clips, List<DecodePath> paths, long stream, GpuEvent ready, SamplerState after)
        implements AutoCloseable {
    @Override
    public void close() {
        try {
            ready.close();
        } finally {
            buffer.close();
        }
    }

    @Override
    public String toString() {
        return "collated batch of " + clips.size() + " clips in " + buffer;
    }
}
