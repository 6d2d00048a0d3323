package dev.stoker.store.remote;

import dev.stoker.pipeline.internal.PrivateFiles;
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
 */
final class CopiedVersions {
    static final String FILE = ".stoker-versions";
    /** Saved after this many changes, so that an interrupted copy keeps most of what it learnt. */
    private static final int SAVE_EVERY = 64;

    private final Path folder;
    private final Map<String, String> versions = new TreeMap<>();
    private int unsaved;

    private CopiedVersions(Path folder) {
        this.folder = folder;
    }

    /** The versions recorded in {@code folder} (none on a first copy). Lines are {@code <version>\t<path>}. */
    static CopiedVersions of(Path folder) throws IOException {
        CopiedVersions known = new CopiedVersions(folder);
        Path file = folder.resolve(FILE);
        if (Files.isRegularFile(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
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
    boolean current(Path copy, BlobStore.Head head) throws IOException {
        if (!Files.isRegularFile(copy) || Files.size(copy) != head.sizeBytes()) {
            return false;
        }
        String key = key(copy);
        String known = versions.get(key);
        if (head.version() == null || known == null) {
            copied(copy, head);
            return true;
        }
        return known.equals(head.version());
    }

    /** {@code copy} now holds the object {@code head} describes. */
    void copied(Path copy, BlobStore.Head head) throws IOException {
        String key = key(copy);
        if (head.version() == null || head.version().matches("(?s).*[\t\n].*") || key.indexOf('\n') >= 0) {
            if (versions.remove(key) == null) {
                return; // nothing known, nothing to know
            }
        } else if (head.version().equals(versions.put(key, head.version()))) {
            return;
        }
        if (++unsaved >= SAVE_EVERY) {
            save();
        }
    }

    /** Writes the versions beside the copies, whole or not at all. */
    void save() throws IOException {
        if (unsaved == 0) {
            return;
        }
        StringBuilder text = new StringBuilder();
        versions.forEach((key, version) -> text.append(version).append('\t').append(key).append('\n'));
        Path part = folder.resolve(FILE + ".part");
        PrivateFiles.createFolders(folder);
        Files.writeString(part, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING);
        try {
            Files.move(part, folder.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(part, folder.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
        }
        unsaved = 0;
    }

    private String key(Path copy) {
        return folder.relativize(copy).toString();
    }
}
