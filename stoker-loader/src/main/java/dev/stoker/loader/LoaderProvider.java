package dev.stoker.loader;

import dev.stoker.loader.dataset.Dataset;
import java.io.IOException;
import java.util.Optional;

/**
 * One kind of host loader {@link Loaders#open} can open: a module that has a loader registers one, as a
 * {@link java.util.ServiceLoader} service ({@code META-INF/services/dev.stoker.loader.LoaderProvider}), so that this
 * module, which knows none of them, opens them all (stoker-video: a folder or manifest of video files; stoker-store:
 * shards, local or on object storage). A new kind of dataset (images, audio) is a new provider; video files stored another way (WebDataset tar files) are a
 * {@code Dataset} of the video loader's.
 */
public interface LoaderProvider {

    /** How a provider takes a location: a mark of its own beats a default. */
    enum Claim {
        /** Not this provider's kind. */
        NONE,
        /** Its kind unless another provider recognises it: any local folder or file could hold video files. */
        DEFAULT,
        /** Recognised by a mark of its kind (a shard folder's manifest). */
        RECOGNISED
    }

    /** What it opens, as an error that no provider took a location names it: {@code "shards written by stoker ingest"}. */
    String opens();

    /**
     * Whether {@code location} is this provider's kind. Cheap (a look at the path, one HEAD for a remote location);
     * {@link Opening#setting} gives what a remote location needs (an endpoint).
     *
     * @throws IOException if the location cannot be asked (a remote store that does not answer)
     */
    Claim claim(String location, Opening opening) throws IOException;

    /**
     * Opens the dataset at {@code location} and a loader over it, which owns the dataset (closes it after itself).
     *
     * @throws IOException if the dataset cannot be read (missing, malformed: the message names the path)
     */
    HostBatchLoader open(String location, LoaderOptions options, Opening opening) throws IOException;

    /**
     * The video files at {@code location}, when this provider reads video files there: what a loader that decodes
     * them elsewhere opens (stoker-gpu's NVDEC loader). Empty from a provider of another kind (shards).
     *
     * @throws IOException if the dataset cannot be read
     */
    default Optional<Dataset> videoFiles(String location) throws IOException {
        return Optional.empty();
    }
}
