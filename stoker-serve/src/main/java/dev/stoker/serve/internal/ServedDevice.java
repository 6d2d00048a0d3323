package dev.stoker.serve.internal;

import dev.stoker.gpu.DeviceBatchSharing;
import dev.stoker.gpu.NvdecLoader;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Loaders;
import dev.stoker.loader.Opening;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.InvalidValueException;
import java.io.IOException;

/**
 * A session's loader when batches stay on the GPU: clips decoded on NVDEC (or NVDEC and the CPU: hybrid), collated in
 * device memory, and handed to the consumer by CUDA IPC ({@link DeviceBatchSharing}), with no trip through the host.
 * Video datasets only (shards decode on the CPU, into host slots Python copies from). Closing closes the sharing's
 * events, then the loader.
 */
public record ServedDevice(NvdecLoader loader, DeviceBatchSharing sharing) implements AutoCloseable {

    /**
     * Opens {@code dataset} (a local video folder or manifest) with NVDEC on {@code device} ({@link Loaders#onDevice}),
     * from {@code resume} (null: the start).
     *
     * @throws IllegalArgumentException for shards, a remote dataset, or decoding on the CPU
     */
    public static ServedDevice open(String dataset, LoaderOptions options, DeviceSpec device, SamplerState resume)
            throws IOException {
        if (!options.decode().device().onGpu()) {
            throw new InvalidValueException(LoaderOption.DECODE_DEVICE.path(), options.decode().device() + " with --device "
                    + device, "nvdec or hybrid: batches decoded on the CPU are served in host memory");
        }
        // Decoding on the GPU, the front door's loader is the NVDEC loader (of video files; shards are refused there).
        NvdecLoader loader = (NvdecLoader) Loaders.onDevice(device, dataset, options, Opening.defaults().resumingFrom(resume));
        try {
            return new ServedDevice(loader, DeviceBatchSharing.on(loader.device()));
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
