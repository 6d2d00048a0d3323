package dev.stoker.pipeline.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Files and folders only their owner may read: batches in shared memory, cached blocks of a dataset and the rings to
 * a child JVM hold training data, which other users of a shared machine must not read or replace. Each is created
 * with its permissions ({@code 0600}, {@code 0700}) rather than changed after, so there is no moment in which it is
 * open to others; a folder shared by all users ({@code /dev/shm}) gets a folder of this user's inside it.
 */
public final class PrivateFiles {
    /** {@code rw-------}: a file only its owner reads and writes. */
    public static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    /** {@code rwx------}: a folder only its owner lists and enters. */
    public static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FOLDER =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private PrivateFiles() {
    }

    /** This process's user id ({@code /proc/self} is owned by it). */
    public static int userId() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalStateException("cannot read this process's user id from /proc/self: " + e, e);
        }
    }

    /**
     * {@code shared/<prefix><uid>}: this user's own folder inside a folder every user may write ({@code /dev/shm},
     * {@code /tmp}), made {@code 0700} when missing. One that exists is used only if it is a real folder (not a
     * link) of this user's that no one else may enter: another user could have made it first to read what goes in.
     */
    public static Path userFolder(Path shared, String prefix) throws IOException {
        Path folder = shared.resolve(prefix + userId());
        try {
            Files.createDirectory(folder, OWNER_ONLY_FOLDER);
        } catch (FileAlreadyExistsException e) {
            requireOwnedAndPrivate(folder);
        }
        return folder;
    }

    /** Fails, naming the folder and why, unless it is a folder (not a link) owned by this user, closed to others. */
    static void requireOwnedAndPrivate(Path folder) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(folder + ": not a folder (a link or a file stands there; expected this user's own"
                    + " folder: remove it)");
        }
        int owner = (Integer) Files.getAttribute(folder, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != userId()) {
            throw new IOException(folder + ": owned by user " + owner + ", not by this user (" + userId()
                    + "); another user made it, and could read what goes in it: remove it, or choose another folder");
        }
        Set<PosixFilePermission> open = new HashSet<>(Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS));
        open.retainAll(List.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_EXECUTE));
        if (!open.isEmpty()) {
            throw new IOException(folder + ": open to others (" + PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS)) + "; expected rwx------): chmod 700 it");
        }
    }

    /** Makes {@code folder} and the folders missing above it, each {@code 0700}; those that exist stay as they are. */
    public static Path createFolders(Path folder) throws IOException {
        Path absolute = folder.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return folder;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createFolders(parent);
        }
        try {
            Files.createDirectory(absolute, OWNER_ONLY_FOLDER);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw new FileSystemException(absolute.toString(), null, "a file stands there, not a folder");
            }
        }
        return folder;
    }

    /** Opens {@code file} to write, creating it {@code 0600} if it is missing ({@code options} add to WRITE). */
    public static FileChannel open(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> all = new HashSet<>(List.of(options));
        all.add(StandardOpenOption.WRITE);
        return FileChannel.open(file, all, OWNER_ONLY_FILE);
    }
}
