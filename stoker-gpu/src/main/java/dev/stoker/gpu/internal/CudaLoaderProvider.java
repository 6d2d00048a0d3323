package dev.stoker.gpu.internal;

import dev.stoker.gpu.GpuDecodeOptions;
import dev.stoker.gpu.GpuLoader;
import dev.stoker.gpu.NvdecLoader;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.DeviceLoaderProvider;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderProvider;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.InvalidValueException;
import java.io.IOException;
import java.nio.file.Files;

/**
 * {@code Loaders.onDevice} for CUDA devices: with the options decoding on the CPU ({@code auto} resolved first,
 * {@link GpuDecodeOptions#resolve}), a {@link GpuLoader} over the host loader of the location, whatever its kind (video
 * files, shards); decoding on NVDEC ({@code nvdec}, {@code hybrid}), an {@link NvdecLoader} over its video files.
 * Registered in {@code META-INF/services}.
 */
public final class CudaLoaderProvider implements DeviceLoaderProvider {

    @Override
    public boolean reaches(DeviceSpec device) {
        return device.isCuda();
    }

    @Override
    public ClipLoader<? extends LoadedBatch> open(DeviceSpec device, String location, LoaderProvider host,
                                                  LoaderOptions options, Opening opening) throws IOException {
        LoaderOptions resolved = GpuDecodeOptions.resolve(options);
        if (!resolved.decode().device().onGpu()) {
            return GpuLoader.open((o, op) -> host.open(location, o, op), resolved, device, opening);
        }
        Dataset videos = host.videoFiles(location).orElseThrow(() -> new InvalidValueException(
                LoaderOption.DECODE_DEVICE.path(), resolved.decode().device() + " with " + host.opens() + " at " + location,
                "cpu: NVDEC decodes video files; these decode on the CPU, and their batches go to the GPU"));
        if (videos.entries().stream().anyMatch(e -> Files.isDirectory(e.path()))) {
            throw new InvalidValueException(LoaderOption.DECODE_DEVICE.path(), resolved.decode().device()
                    + " with videos stored as folders of images at " + location,
                    "cpu: NVDEC decodes video files; images decode on the CPU, and their batches go to the GPU");
        }
        return NvdecLoader.open(videos, resolved, device, opening);
    }
}
