package dev.stoker.loader;

import java.io.IOException;

/**
 * Opens a host loader over one dataset, whatever kind it is (video files, shards), with the options and the opening
 * it is given: what a loader that takes batches elsewhere wraps (stoker-gpu's {@code GpuLoader}: batches collated into
 * pinned memory, then copied to a GPU), so that it needs to know nothing of what it wraps.
 * {@code Loaders.hostFactory} gives the one for a location.
 */
@FunctionalInterface
public interface HostLoaderFactory {

    /**
     * Opens the loader and starts loading.
     *
     * @throws IOException if the dataset cannot be read
     */
    HostBatchLoader open(LoaderOptions options, Opening opening) throws IOException;
}
