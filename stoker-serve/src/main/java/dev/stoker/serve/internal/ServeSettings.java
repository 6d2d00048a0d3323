package dev.stoker.serve.internal;

import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.store.remote.BlockCache;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a {@link ServeSession} serves and how.
 *
 * @param dataset  a video dataset ({@code ROOT/<class>/<video>} or a CSV manifest), a shard folder, or shards on
 *                 object storage or HTTP ({@code s3://bucket/prefix}, {@code https://…}), read in place by ranged GETs
 * @param s3Endpoint the S3 endpoint for {@code s3://} shards on S3 compatibles, or null for AWS's (region and
 *                 credentials come from the usual AWS settings)
 * @param cache    a local block cache for remote shards (a second epoch, or a later session, reads the blocks it
 *                 holds from disk), or null for none
 * @param options  the loader's options; the batch budget is set from the slots
 * @param prefetch batches the loader may have ready beyond those the consumer holds
 * @param hold     batches the consumer keeps besides the one it works on (each stays valid until {@code hold + 1}
 *                 newer ones were taken)
 * @param shm      where the shared-memory file goes
 * @param resume   the state to continue from, or null to start at the beginning
 * @param publish  the port to publish live stats on for {@code stoker monitor} (0: any free port), or -1 for none
 * @param device   where batches go: {@link DeviceSpec#CPU}, shared memory on the host; {@code cuda:N} with
 *                 {@code decode} nvdec or hybrid, device memory of that GPU shared by CUDA IPC (nothing crosses the
 *                 host); with decode cpu, batches are host batches whatever this says
 */
public record ServeSettings(String dataset, URI s3Endpoint, BlockCache.Settings cache, LoaderOptions options,
                            int prefetch, int hold, SharedMemoryDir shm, SamplerState resume, int publish,
                            DeviceSpec device) {
    public ServeSettings {
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(shm, "shm");
        if (prefetch < 1) {
            throw new InvalidValueException("prefetch", prefetch, "1+");
        }
        if (hold < 0) {
            throw new InvalidValueException("hold", hold, "0+");
        }
        // Decoded on the CPU, batches are host batches wherever they go next (the consumer copies them up).
        device = device == null || !options.decode().device().onGpu() ? DeviceSpec.CPU : device;
        if (options.decode().device().onGpu() && !device.isCuda()) {
            throw new IllegalArgumentException("device: " + device + " with decode " + options.decode().device()
                    + " (expected: cuda:N; batches decoded on NVDEC stay on the GPU)");
        }
    }

    /** Host batches in shared memory. */
    public ServeSettings(String dataset, URI s3Endpoint, BlockCache.Settings cache, LoaderOptions options, int prefetch,
                         int hold, SharedMemoryDir shm, SamplerState resume, int publish) {
        this(dataset, s3Endpoint, cache, options, prefetch, hold, shm, resume, publish, DeviceSpec.CPU);
    }

    /** A local dataset or shard folder. */
    public ServeSettings(Path dataset, LoaderOptions options, int prefetch, int hold, SharedMemoryDir shm,
                         SamplerState resume, int publish) {
        this(Objects.requireNonNull(dataset, "dataset").toString(), null, null, options, prefetch, hold, shm, resume, publish,
                DeviceSpec.CPU);
    }

    /**
     * Slots of the shared-memory file: the batches the consumer may hold ({@code hold + 1}), {@code prefetch}
     * ready ones, and one that collate fills, so that a consumer holding all it may never starves collate.
     */
    public int slots() {
        return hold + 1 + prefetch + 1;
    }
}
