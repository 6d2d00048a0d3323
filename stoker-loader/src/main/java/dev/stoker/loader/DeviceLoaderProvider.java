package dev.stoker.loader;

import dev.stoker.loader.batch.LoadedBatch;
import java.io.IOException;

/**
 * Puts a loader's batches on a device ({@link Loaders#onDevice}): registered as a {@link java.util.ServiceLoader}
 * service ({@code META-INF/services/dev.stoker.loader.DeviceLoaderProvider}) by a module that reaches one (stoker-gpu:
 * CUDA devices). It wraps the host loader of the location, whatever its kind (so shards go to a GPU as video files
 * do), or, when the options decode on the device, opens a loader that decodes there.
 */
public interface DeviceLoaderProvider {

    /** Whether it reaches {@code device} ({@code cuda:N}). */
    boolean reaches(DeviceSpec device);

    /**
     * A loader whose batches are on {@code device}: {@code host}'s batches copied there, or, when
     * {@code options.decode()} decodes on the device, the video files {@code host} reads there decoded on it.
     *
     * @throws IOException if the dataset cannot be read
     * @throws IllegalArgumentException if the options ask for what this device cannot do with that location
     */
    ClipLoader<? extends LoadedBatch> open(DeviceSpec device, String location, LoaderProvider host,
                                           LoaderOptions options, Opening opening) throws IOException;
}
