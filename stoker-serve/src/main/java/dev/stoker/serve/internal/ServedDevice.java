package dev.stoker.serve.internal;

import dev.stoker.gpu.DeviceBatchSharing;
import dev.stoker.gpu.NvdecLoader;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A session's loader when batches stay on the GPU: clips decoded on NVDEC (or NVDEC and the CPU: hybrid), collated in
 * device memory, and handed to the consumer by CUDA IPC ({@link DeviceBatchSharing}), with no trip through the host.
 * Video datasets only (shards decode on the CPU). Closing closes the sharing's events, then the loader.
 */
public record ServedDevice(NvdecLoader loader, DeviceBatchSharing sharing, List<String> classNames)
        implements AutoCloseable {

    /**
     * Opens {@code dataset} (a local video folder or manifest) with NVDEC on {@code device}.
     *
     * @throws IllegalArgumentException for shards or a remote dataset
     */
    public static ServedDevice open(String dataset, LoaderOptions options, DeviceSpec device, SamplerState resume)
            throws IOException {
        Dataset videos = Dataset.open(Path.of(dataset));
        NvdecLoader loader = NvdecLoader.open(videos, options, device, Opening.defaults().resumingFrom(resume));
        try {
            return new ServedDevice(loader, DeviceBatchSharing.on(loader.device()), videos.classNames());
        } catch (RuntimeException e) {
            loader.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            sharing.close();
        } finally {
            loader.close();
        }
    }
}
