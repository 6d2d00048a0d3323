package dev.stoker.video.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.FailureReason;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Videos whose failure is a property of the file (empty, not a container, no video stream, corrupt or truncated,
 * an unsupported codec: {@link FailureReason#fileFault()}), so that a loader skips them before fetching them again instead of
 * failing on them in every epoch. Each entry records the file's size and modification time when it failed: a file
 * changed since (replaced by a good download, say) is tried again.
 *
 * <p>Kept in memory for one run, or in a JSONL file ({@link #open}) that the next run reads, so that it skips them
 * from the start; new entries are appended to it as they happen. A transient failure (an I/O error that a retry
 * may fix, a crashed child process) is never quarantined. Thread-safe.
 */
public final class Quarantine {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One quarantined file, as a line of the JSONL file.
     *
     * @param path        the file, absolute
     * @param sizeBytes   its size when it failed
     * @param mtimeMillis its modification time when it failed
     * @param stage       the stage it failed in ({@code demux}, {@code decode}, ...)
     * @param reason      the failure's reason code ({@code truncated}, {@code unsupported-codec}, ...)
     */
    public record Entry(String path, long sizeBytes, long mtimeMillis, String stage, String reason) {
    }

    private final Path file;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final int fromFile;
    private final int changedSince;
    /** The entries read at open (unchanged files), in file order. */
    private final List<Entry> loaded;

    private Quarantine(Path file, List<Entry> loaded) {
        this.file = file;
        int changed = 0;
        for (Entry e : loaded) {
            if (unchanged(e)) {
                entries.put(key(Path.of(e.path())), e);
            } else {
                changed++;
                entries.remove(key(Path.of(e.path()))); // a later line for the same path replaces an earlier one
            }
        }
        this.fromFile = entries.size();
        this.loaded = List.copyOf(entries.values());
        this.changedSince = changed;
    }

    /** A quarantine of this run only. */
    public static Quarantine inMemory() {
        return new Quarantine(null, List.of());
    }

    /**
     * The quarantine in {@code file} (JSONL, one {@link Entry} a line; a missing file is an empty quarantine):
     * its entries whose file is unchanged (same size and modification time), with new entries appended to it.
     *
     * @throws IOException when the file cannot be read, or a line is not an entry (naming the file and line)
     */
    public static Quarantine open(Path file) throws IOException {
        List<Entry> loaded = new ArrayList<>();
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.isEmpty()) {
                    continue;
                }
                try {
                    Entry e = JSON.readValue(line, Entry.class);
                    if (e.path() == null) {
                        throw new IOException("no path");
                    }
                    try {
                        Path.of(e.path());
                    } catch (java.nio.file.InvalidPathException bad) {
                        throw new IOException(bad.getMessage(), bad);
                    }
                    loaded.add(e);
                } catch (IOException e) {
                    throw new IOException(file + ": line " + (i + 1) + ": not a quarantine entry (expected: {\"path\": ..., "
                            + "\"sizeBytes\": ..., \"mtimeMillis\": ..., \"stage\": ..., \"reason\": ...}): "
                            + e.getMessage(), e);
                }
            }
        }
        return new Quarantine(file, loaded);
    }

    /**
     * The quarantine {@code options} name ({@link LoaderOptions#quarantine()}), else one of this run only.
     *
     * @throws UncheckedIOException when the file cannot be read (naming it)
     */
    static Quarantine of(LoaderOptions options) {
        if (options.quarantine() == null) {
            return inMemory();
        }
        try {
            return open(options.quarantine());
        } catch (IOException e) {
            throw new UncheckedIOException("quarantine: " + e.getMessage(), e);
        }
    }

    /**
     * {@code dataset} without the quarantined videos: what a loader samples, so that its order is the order of the
     * same seed over a dataset that never held them. The dataset itself when none of its videos is quarantined.
     */
    public Dataset without(Dataset dataset) {
        List<VideoEntry> kept = dataset.entries().stream().filter(e -> !contains(e.path())).toList();
        return kept.size() == dataset.size() ? dataset : new Dataset(kept, dataset.classNames());
    }

    /**
     * {@code dataset} without the first {@code count} entries read from the file: the dataset a run that started
     * when the (append-only) file held only those left out. A resumed run finds the one its state was taken on.
     */
    Dataset withoutFirst(Dataset dataset, int count) {
        Set<String> out = new java.util.HashSet<>();
        for (Entry e : loaded.subList(0, count)) {
            out.add(key(Path.of(e.path())));
        }
        List<VideoEntry> kept = dataset.entries().stream().filter(e -> !out.contains(key(e.path()))).toList();
        return kept.size() == dataset.size() ? dataset : new Dataset(kept, dataset.classNames());
    }

    /** Whether {@code path} is quarantined. */
    public synchronized boolean contains(Path path) {
        return entries.containsKey(key(path));
    }

    /**
     * Quarantines {@code path}, which failed in {@code stage} with reason {@code reason} (a file fault), and appends
     * it to the file if there is one. Returns false, changing nothing, if it was quarantined already.
     *
     * @throws UncheckedIOException when the file cannot be appended to (naming it)
     */
    public synchronized boolean add(Path path, String stage, String reason) {
        String key = key(path);
        if (entries.containsKey(key)) {
            return false;
        }
        // Gone or unreadable now: recorded as such (-1), so that it is tried again once it is back.
        FileStamp stamp = FileStamp.of(path);
        Entry entry = new Entry(key, stamp.sizeBytes(), stamp.mtimeMillis(), stage, reason);
        entries.put(key, entry);
        if (file != null) {
            append(entry);
        }
        return true;
    }

    /** Every quarantined file, in the order quarantined (those read from the file first). */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /** Entries read from the file at open (unchanged files only). */
    public int fromFile() { return fromFile; }

    /** Entries of the file left out at open because their file changed since (they are tried again). */
    public int changedSince() { return changedSince; }

    /** The JSONL file, or null for a quarantine of this run only. */
    public Path file() { return file; }

    private void append(Entry entry) {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            out.write(JSON.writeValueAsString(entry));
            out.write('\n');
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("quarantine: cannot append to " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A file as the quarantine knows it: absolute and normalised, so that a list written by one command ({@code scan
     * data/}) applies to another run from elsewhere ({@code bench ./data}).
     */
    private static String key(Path path) {
        return path.toAbsolutePath().normalize().toString();
    }

    private static boolean unchanged(Entry e) {
        FileStamp now = FileStamp.of(Path.of(e.path()));
        return now.present() && now.equals(new FileStamp(e.sizeBytes(), e.mtimeMillis()));
    }
}
