package dev.stoker.loader.dataset.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file's size and modification time: what tells whether a file read once is still the same file (an ingest
 * keeps the shards of unchanged sources, a quarantine tries a changed file again) without reading it.
 *
 * @param sizeBytes   its size, -1 when it could not be read
 * @param mtimeMillis its modification time, -1 when it could not be read
 */
public record FileStamp(long sizeBytes, long mtimeMillis) {
    /** The stamp of a file that is missing or unreadable. */
    public static final FileStamp ABSENT = new FileStamp(-1, -1);

    /** The stamp of {@code file} now, or {@link #ABSENT} (a missing or unreadable file fails where it is read). */
    public static FileStamp of(Path file) {
        try {
            return new FileStamp(Files.size(file), Files.getLastModifiedTime(file).toMillis());
        } catch (IOException e) {
            return ABSENT;
        }
    }

    /** Whether the file was there when stamped. */
    public boolean present() {
        return sizeBytes >= 0;
    }
}
