package dev.stoker.serve.internal;

import dev.stoker.pipeline.internal.PrivateFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the shared-memory files go: {@code dir} ({@code /dev/shm} by default) is the tmpfs, and the files are in this
 * user's own folder inside it ({@code stoker-<uid>}, {@code 0700}; the files {@code 0600}: {@link PrivateFiles}), so
 * that no other user of the machine can read or replace a batch. Their names carry the serving process's id, so
 * that the files of a run that died without cleaning up are found and removed at the next start; the space check
 * turns a too-small {@code /dev/shm} into an error before any work starts.
 */
public record SharedMemoryDir(Path dir) {
    private static final Pattern NAME = Pattern.compile("stoker-(\\d+)-[0-9a-f]+\\.shm");

    /** {@code /dev/shm}, the tmpfs every Linux has (Docker: 64 MB unless {@code --shm-size}). */
    public static SharedMemoryDir standard() {
        return new SharedMemoryDir(Path.of("/dev/shm"));
    }

    /** This user's folder in {@code dir}, made {@code 0700} if missing (refused if another user owns it). */
    public Path folder() throws IOException {
        return PrivateFiles.userFolder(dir, "stoker-");
    }

    /** A fresh file name for this process, in {@link #folder()}. */
    public Path newFile() throws IOException {
        return folder().resolve(String.format(Locale.ROOT, "stoker-%d-%08x.shm", ProcessHandle.current().pid(),
                ThreadLocalRandom.current().nextInt()));
    }

    /** Removes the files of serving processes that are no longer alive; returns them. */
    public List<Path> removeStale() throws IOException {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return removed;
        }
        Path folder = folder();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "stoker-*.shm")) {
            for (Path file : files) {
                Matcher m = NAME.matcher(file.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).map(p -> !p.isAlive()).orElse(true)
                        && Files.deleteIfExists(file)) {
                    removed.add(file);
                }
            }
        }
        return removed;
    }

    /**
     * Fails with a message that names the bytes needed and the fix when the folder cannot hold {@code slots} slots
     * of {@code slotBytes}.
     */
    public void requireSpace(int slots, long slotBytes) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + ": no such folder for the shared-memory batches (expected: a tmpfs such as /dev/shm)");
        }
        long needed = slots * slotBytes;
        long free = Files.getFileStore(dir).getUsableSpace();
        if (free < needed) {
            // The suggested size leaves a quarter on top: the training process and its libraries use /dev/shm too.
            throw new IOException(String.format(Locale.ROOT,
                    "%s has %s free; the batches need %d bytes (%s: %d slots of %s): give it more (Docker:"
                            + " --shm-size=%dm), or lower batch_size or prefetch", dir, mib(free), needed, mib(needed),
                    slots, mib(slotBytes), Math.max(256, (needed + needed / 4 >> 20) + 1)));
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
