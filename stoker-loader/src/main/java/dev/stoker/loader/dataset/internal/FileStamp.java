package dev.stoker.loader.dataset.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A file's size and modification time (a folder's: its files'): what tells whether a file read once is still the same
 * file (an ingest
 * keeps the shards of unchanged sources, a quarantine tries a changed file again) without reading it.
 *
 * @param sizeBytes   its size, -1 when it could not be read
 * @param mtimeMillis its modification time, -1 when it could not be read
 */
public record FileStamp(long sizeBytes, long mtimeMillis) {
    /** The stamp of a file that is missing or unreadable. */
    public static final FileStamp ABSENT = new FileStamp(-1, -1);
    /** How close to now a change is too recent to remember what was read by the stamp ({@link #settled}). */
    public static final long RACY_MILLIS = 2_000;

    /**
     * The stamp of {@code file} now, or {@link #ABSENT} (a missing or unreadable file fails where it is read). A folder
     * (a video stored as its frames) is stamped by its files: their total size and latest modification, since a
     * folder's own time changes only when entries come or go, not when a frame is written again. A member of a tar
     * archive ({@link ArchiveMembers}) has its own size and its archive's time.
     */
    public static FileStamp of(Path file) {
        try {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (IOException e) {
                // Not a file of its own: a member of an archive, or missing.
                return ArchiveMembers.find(file).map(ArchiveMembers.Member::stamp).orElse(ABSENT);
            }
            if (!attributes.isDirectory()) {
                return new FileStamp(attributes.size(), attributes.lastModifiedTime().toMillis());
            }
            long size = 0;
            long mtime = attributes.lastModifiedTime().toMillis();
            try (DirectoryStream<Path> children = Files.newDirectoryStream(file)) {
                for (Path child : children) {
                    BasicFileAttributes c;
                    try {
                        c = Files.readAttributes(child, BasicFileAttributes.class);
                    } catch (IOException e) {
                        continue; // a dangling link, a file gone since the listing: not part of the stamp
                    }
                    if (c.isRegularFile()) {
                        size += c.size();
                        mtime = Math.max(mtime, c.lastModifiedTime().toMillis());
                    }
                }
            }
            return new FileStamp(size, mtime);
        } catch (IOException e) {
            return ABSENT;
        }
    }

    /**
     * Whether what was read of a file last changed at {@code mtimeMillis} (a folder's listing, an archive's index) may
     * be remembered by its stamp, read at {@code nowMillis}: not if it changed within {@link #RACY_MILLIS} before
     * then, or at any time after, since a second change within the clock's grain would leave the same stamp (git's rule
     * for racy files). A time ahead of this machine's clock (a file server's clock running ahead) may be a write made
     * just now by that clock, so it too is read every time: slower under clock skew, never stale.
     */
    public static boolean settled(long mtimeMillis, long nowMillis) {
        return nowMillis - mtimeMillis > RACY_MILLIS;
    }

    /** Whether the file was there when stamped. */
    public boolean present() {
        return sizeBytes >= 0;
    }
}
