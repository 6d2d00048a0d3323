package dev.stoker.loader;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Runs in a {@code VideoLoader}'s fetch stage just before it reads a video file (for a video stored as a folder of
 * frames, before each frame file it reads), on the fetching thread: for
 * example, dropping the file's pages from the page cache so that the read comes from the device (a cold-cache
 * benchmark). {@link LoaderOptionsBuilder#fetchHook} names it by class, so that it can be made in a child JVM too
 * ({@link LoaderOptions.Placement#splitAfter()} {@link VideoStage#FETCH}): a public class with a public no-argument constructor,
 * one instance per loader, called from the fetch workers at once.
 */
public interface FetchHook {

    /**
     * Called before {@code file} is read. An exception fails the sample (reason {@code io-error}, naming the file),
     * counted and skipped within the failure budget like a failed read.
     */
    void beforeRead(Path file) throws IOException;
}
