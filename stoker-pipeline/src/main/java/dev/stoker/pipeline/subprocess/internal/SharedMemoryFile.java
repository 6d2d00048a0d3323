package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.pipeline.internal.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file mapped into memory through FFM ({@code FileChannel.map(..., Arena)}), shared by the parent and
 * its child JVM: {@code /dev/shm/stoker-<uid>/stoker-<parentpid>-<n>.shm} (tmpfs: never written to disk), or the
 * same under {@code java.io.tmpdir} where {@code /dev/shm} is absent: in a folder of this user's, the file {@code
 * 0600} ({@link PrivateFiles}). Creating one first deletes the files of earlier runs whose parent process is gone, so
 * a crashed run leaves nothing behind for long.
 */
public final class SharedMemoryFile implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");
    private static final Pattern NAME = Pattern.compile("stoker-(\\d+)-(\\d+)\\.shm");
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final Path path;
    private final Arena arena;
    private final MemorySegment segment;
    private final boolean owner;

    private SharedMemoryFile(Path path, Arena arena, MemorySegment segment, boolean owner) {
        this.path = path;
        this.arena = arena;
        this.segment = segment;
        this.owner = owner;
    }

    /**
     * The folder the files go in: this user's own ({@code stoker-<uid>}, {@code 0700}) in {@code /dev/shm} when that
     * is a writable folder, else in {@code java.io.tmpdir}.
     */
    public static Path directory() {
        Path shm = Path.of("/dev/shm");
        Path shared = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        try {
            return PrivateFiles.userFolder(shared, "stoker-");
        } catch (IOException e) {
            throw new UncheckedIOException("no folder for the shared memory with a child JVM: " + e.getMessage(), e);
        }
    }

    /** Creates a new zero-filled file of {@code bytes} and maps it; the caller owns it and deletes it by {@link #close()}. */
    public static SharedMemoryFile create(long bytes) {
        Path dir = directory();
        deleteStale(dir);
        Path path = dir.resolve("stoker-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet() + ".shm");
        return map(path, bytes, true);
    }

    /** Maps an existing file (the child's side); {@link #close()} unmaps it and leaves the file. */
    public static SharedMemoryFile open(Path path, long bytes) {
        return map(path, bytes, false);
    }

    private static SharedMemoryFile map(Path path, long bytes, boolean create) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = create
                ? FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                        StandardOpenOption.WRITE), PrivateFiles.OWNER_ONLY_FILE)
                : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (create) {
                channel.truncate(bytes);
                channel.position(bytes - 1);
                channel.write(java.nio.ByteBuffer.wrap(new byte[1]));
            } else if (channel.size() < bytes) {
                throw new IllegalStateException("shared memory file " + path + ": " + channel.size() + " bytes (expected: "
                        + bytes + ")");
            }
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            MemoryAccount.allocated(MemoryAccount.Kind.SHARED_MEMORY, bytes);
            return new SharedMemoryFile(path, arena, segment, create);
        } catch (IOException e) {
            arena.close();
            if (create) {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // nothing more to do
                }
            }
            throw new UncheckedIOException("cannot map shared memory file " + path + " (" + bytes + " bytes): " + e.getMessage(), e);
        }
    }

    /** Deletes {@code stoker-<pid>-<n>.shm} files in {@code dir} whose pid is no longer a live process; returns how many. */
    public static int deleteStale(Path dir) {
        int deleted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "stoker-*.shm")) {
            for (Path f : files) {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive && Files.deleteIfExists(f)) {
                    deleted++;
                    LOG.log(System.Logger.Level.INFO, "deleted stale shared memory file " + f + " (process " + pid + " is gone)");
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not scan " + dir + " for stale shared memory files: " + e);
        }
        return deleted;
    }

    public Path path() { return path; }

    public MemorySegment segment() { return segment; }

    /** Unmaps the file, and deletes it if this side created it. */
    @Override
    public void close() {
        try {
            arena.close();
            MemoryAccount.freed(MemoryAccount.Kind.SHARED_MEMORY, segment.byteSize());
        } catch (IllegalStateException alreadyClosed) {
            // idempotent
        }
        if (owner) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot delete shared memory file " + path + ": " + e);
            }
        }
    }
}
