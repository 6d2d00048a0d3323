package dev.stoker.video.loader.internal;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderProvider;
import dev.stoker.loader.Opening;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code Loaders.open} for video files: a local folder {@code ROOT/<class>/<video>} or a CSV manifest, read by the
 * {@link VideoLoader}. Any local path may hold them, so it takes every local location a provider of another kind does
 * not recognise (remote video files are copied into a cache first: stoker-cli's {@code RemoteLocations}).
 * Registered in {@code META-INF/services}.
 */
public final class VideoFilesProvider implements LoaderProvider {

    @Override
    public String opens() {
        return "a local folder ROOT/<class>/<video> or a CSV manifest of video files";
    }

    @Override
    public Claim claim(String location, Opening opening) {
        return location.contains("://") ? Claim.NONE : Claim.DEFAULT;
    }

    @Override
    public HostBatchLoader open(String location, LoaderOptions options, Opening opening) throws IOException {
        return VideoLoader.open(Dataset.open(Path.of(location)), options, opening);
    }

    @Override
    public Optional<Dataset> videoFiles(String location) throws IOException {
        return Optional.of(Dataset.open(Path.of(location)));
    }
}
