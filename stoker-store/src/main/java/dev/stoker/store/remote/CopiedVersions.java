package dev.stoker.store.remote;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versions ({@link BlobStore.Head#version}: ETags) of the objects a folder holds copies of, kept in a hidden file
 * of the folder, which no dataset reads: what tells a copy of an object from a copy of the same size of what the object
 * was (a tar archive's padding keeps its size when a label inside changes). A copy made before versions were kept, or
 * of a store that gives none, is judged by its size alone, as before; its version is recorded from then on.
 *
 * <p>The file is a journal, {@code <version>\t<path>} a line, the last line of a path winning: each copy's line is
 * appended as soon as the copy is in place, so that a copy killed midway (no {@code finally} runs on SIGKILL) leaves
 * no copy unrecorded to be taken later for a newer object of its size. Closing rewrites it with one line a path.
 * Files are copied several at once: the methods are synchronized.
 */
final class CopiedVersions implements AutoCloseable {
    static final String FILE = ".stoker-versions";
    /** The journal's word for a version no longer known: no store's (ETags are quoted, dates have spaces). */
    private static final String FORGOTTEN = "-";

    private final Path folder;
    private final Map<String, String> versions = new TreeMap<>();
    private boolean appended;

    private CopiedVersions(Path folder) {
        this.folder = folder;
    }

    /** The versions recorded in {@code folder} (none on a first copy). */
    static CopiedVersions of(Path folder) throws IOException {
        CopiedVersions known = new CopiedVersions(folder);
        Path file = folder.resolve(FILE);
        if (Files.isRegularFile(file)) {
            for (String line : Files.readString(file, StandardCharsets.UTF_8).split("\n")) {
                int tab = line.indexOf('\t');
                if (tab > 0 && line.substring(0, tab).equals(FORGOTTEN)) {
                    known.versions.remove(line.substring(tab + 1));
                } else if (tab > 0) {
                    known.versions.put(line.substring(tab + 1), line.substring(0, tab));
                }
            }
        }
        return known;
    }

    /**
     * Whether {@code copy} is the object {@code head} describes: its size, and its version where both are known. A
     * copy judged current whose version was unknown has it recorded.
     */
    synchronized boolean current(Path copy, BlobStore.Head head) throws IOException {
        if (!Files.isRegularFile(copy) || Files.size(copy) != head.sizeBytes()) {
            return false;
        }
        String known = versions.get(key(copy));
        if (head.version() == null || known == null) {
            copied(copy, head);
            return true;
        }
        return known.equals(head.version());
    }

    /** {@code copy} now holds the object {@code head} describes: recorded at once, in the journal. */
    synchronized void copied(Path copy, BlobStore.Head head) throws IOException {
        String key = key(copy);
        String version = head.version();
        if (version == null || !onOneLine(version) || version.indexOf('\t') >= 0 || version.equals(FORGOTTEN)
                || !onOneLine(key)) {
            if (versions.remove(key) != null) {
                append(FORGOTTEN + "\t" + key);
            }
            return;
        }
        if (!version.equals(versions.put(key, version))) {
            append(version + "\t" + key);
        }
    }

    /** Rewrites the journal with one line a path, whole or not at all (a temporary file of its own: Spark's tasks). */
    @Override
    public synchronized void close() throws IOException {
        if (!appended) {
            return;
        }
        StringBuilder text = new StringBuilder();
        versions.forEach((key, version) -> text.append(version).append('\t').append(key).append('\n'));
        Path part = Files.createTempFile(folder, FILE, ".part");
        try {
            Files.writeString(part, text, StandardCharsets.UTF_8);
            try {
                Files.move(part, folder.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, folder.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(part);
        }
        appended = false;
    }

    private void append(String line) throws IOException {
        Files.writeString(folder.resolve(FILE), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        appended = true;
    }

    /** A line break inside would split its line in two (a tab in a path is fine: the first tab ends the version). */
    private static boolean onOneLine(String text) {
        return text.indexOf('\n') < 0 && text.indexOf('\r') < 0;
    }

    private String key(Path copy) {
        return folder.relativize(copy).toString();
    }
}
