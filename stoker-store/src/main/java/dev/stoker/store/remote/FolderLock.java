package dev.stoker.store.remote;

import dev.stoker.pipeline.internal.PrivateFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A cache folder's lock file, held while one process uses the folder: two loaders would evict each other's blocks. */
record FolderLock(FileChannel channel, FileLock lock) implements AutoCloseable {

    /**
     * Makes {@code dir} if absent ({@code 0700}: the blocks are the dataset's) and takes its lock.
     *
     * @throws IOException when the folder cannot be made, or another process has it open
     */
    static FolderLock take(Path dir) throws IOException {
        FileChannel channel;
        try {
            PrivateFiles.createFolders(dir);
            channel = PrivateFiles.open(dir.resolve("lock"), StandardOpenOption.CREATE);
        } catch (IOException e) {
            // A file-system exception's message is often the path alone; its kind is the reason.
            throw new IOException(dir + ": cannot make the block cache folder or its lock file ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new IOException(dir + ": the block cache is in use by another loader (expected: one process a cache folder)");
        }
        return new FolderLock(channel, lock);
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the lock goes with the process anyway
        }
    }
}
