package dev.stoker.store.remote;

import dev.stoker.loader.dataset.internal.BracePattern;
import dev.stoker.pipeline.internal.PrivateFiles;
import dev.stoker.store.remote.internal.ByteRange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Video files in object storage or behind HTTP, copied into a local folder that {@code Dataset.open} reads:
 * {@code s3://bucket/prefix} holding {@code <class>/<video>} (the Kinetics layout), or {@code .tar} archives of
 * WebDataset samples, becomes that folder; an {@code https://…} CSV manifest {@code url,label[,start,end[,text]]}
 * (URLs absolute or relative to the manifest) becomes a local manifest of the copies, its header and fields kept. Each file is downloaded in ranged GETs of {@link #BLOCK_BYTES} (each retried alone)
 * into a {@code .part} file renamed when complete, so a copy under its own name is always whole; a copy already there
 * with the object's size and version ({@link CopiedVersions}) is kept, so an interrupted copy resumes file by file.
 * {@link #FILES_IN_FLIGHT} files are copied at once.
 */
public final class RemoteVideos {
    static final long BLOCK_BYTES = 8L << 20;
    /**
     * Files copied at once. Each request waits a round trip before its first byte, so one file at a time leaves the
     * link idle between them: a Kinetics-sized tree is 240k files of a few MiB. At most this many blocks are in memory.
     */
    static final int FILES_IN_FLIGHT = 8;
    /** The local manifest an HTTP source becomes. */
    public static final String MANIFEST = "videos.csv";

    /**
     * What a copy did.
     *
     * @param notCopied the files of a manifest that could not be copied, each {@code url: why} (left out of the copy:
     *                  each fails as not found when loaded, counted within the failure budget)
     */
    public record Result(Path source, int files, int downloaded, long bytesDownloaded, int kept,
                         List<String> notCopied) {
        public Result {
            notCopied = List.copyOf(notCopied);
        }
    }

    /** What a copy tells as it goes: a copy of 240k files takes a while. Called from the copying threads. */
    public interface Listener {
        /** The files to copy (or find there). */
        default void planned(int files) {
        }

        /** One file copied ({@code bytes} downloaded, 0 for a copy kept) or, {@code failed}, not copied. */
        default void fileDone(boolean failed, long bytes) {
        }
    }

    private static final Listener SILENT = new Listener() { };

    private RemoteVideos() {
    }

    /** Copies the videos at {@code location} into {@code folder}; the result's source is what to open as the dataset. */
    public static Result copy(String location, URI s3Endpoint, Path folder) throws IOException {
        return copy(location, s3Endpoint, folder, SILENT);
    }

    /** {@link #copy(String, URI, Path)}, telling {@code listener} each file's end. */
    public static Result copy(String location, URI s3Endpoint, Path folder, Listener listener) throws IOException {
        if (isArchivePattern(location)) {
            return copyNamed(location, s3Endpoint, folder, listener);
        }
        try (BlobStore store = BlobStore.open(location, s3Endpoint)) {
            return copy(store, folder, listener);
        }
    }

    public static Result copy(BlobStore store, Path folder) throws IOException {
        return copy(store, folder, SILENT);
    }

    private static Result copy(BlobStore store, Path folder, Listener listener) throws IOException {
        PrivateFiles.createFolders(folder);
        if (store instanceof HttpBlobStore http) {
            return copyManifest(http, folder, listener);
        }
        List<String> keys = new ArrayList<>();
        List<String> archives = new ArrayList<>();
        for (String key : store.list()) {
            // ROOT/<class>/<video>: files directly under the prefix (a README) are not videos, as in a local folder.
            if (key.indexOf('/') > 0 && !key.endsWith("/")) {
                keys.add(key);
            } else if (key.indexOf('/') < 0 && key.toLowerCase(java.util.Locale.ROOT).endsWith(".tar")) {
                archives.add(key); // WebDataset shards, ROOT/*.tar: read in place once copied, as a local folder's
            }
        }
        if (keys.isEmpty()) {
            keys = archives;
        }
        if (keys.isEmpty()) {
            throw new IOException(store.location() + ": no videos (expected: objects named <class>/<video> under it,"
                    + " or .tar archives of WebDataset samples)");
        }
        Map<Path, Named> fetches = new LinkedHashMap<>();
        for (String key : keys) {
            Path copy = folder.resolve(key).normalize();
            if (!copy.startsWith(folder) || copy.equals(folder)) {
                throw new IOException(store.location() + ": key " + key + " leaves the copy folder (expected: a plain"
                        + " <class>/<video> name)");
            }
            fetches.put(copy, new Named(key, versions -> fetch(store, key, copy, versions)));
        }
        return fetchAll(folder, folder, keys.size(), fetches, false, listener);
    }

    /**
     * Whether {@code location} is WebDataset's way of naming archives, {@code https://host/shards/train-{0..9}.tar} (a
     * query after it allowed): a brace pattern whose path ends in {@code .tar}, rather than a prefix that holds braces.
     */
    public static boolean isArchivePattern(String location) {
        int query = location.indexOf('?');
        String path = query < 0 ? location : location.substring(0, query);
        return BracePattern.isPattern(path) && path.toLowerCase(java.util.Locale.ROOT).endsWith(".tar");
    }

    /**
     * The archives a brace pattern names, each copied into {@code folder} at its URL's path (so that a pattern over
     * folders, {@code {a,b}/data.tar}, keeps them apart): the result's source is the same pattern over the copies, which
     * {@code Dataset.open} reads in the pattern's order.
     */
    private static Result copyNamed(String pattern, URI s3Endpoint, Path folder, Listener listener) throws IOException {
        int pathStart = pattern.indexOf('/', pattern.indexOf("://") + 3);
        if (pathStart < 0 || BracePattern.isPattern(pattern.substring(0, pathStart))) {
            throw new IOException(pattern + ": braces in the host (expected: in the path, as in"
                    + " https://host/shards/train-{000..009}.tar)");
        }
        List<String> urls;
        try {
            urls = BracePattern.expand(pattern);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        PrivateFiles.createFolders(folder);
        Map<Path, Named> fetches = new LinkedHashMap<>();
        for (String url : urls) {
            URI uri;
            try {
                uri = new URI(url);
            } catch (java.net.URISyntaxException e) {
                throw new IOException(pattern + " names " + url + ", which is no URL: " + e.getReason(), e);
            }
            String path = uri.getPath();
            Path copy = path == null ? null : folder.resolve(path.replaceFirst("^/+", "")).normalize();
            if (copy == null || !copy.startsWith(folder)
                    || !path.toLowerCase(java.util.Locale.ROOT).endsWith(".tar") || fetches.containsKey(copy)) {
                throw new IOException(pattern + " names " + url
                        + " (expected: .tar archives, each at a path of its own)");
            }
            // The name (and its query) against its folder, with the slash: an https:// base resolves a name against
            // it, not beside it.
            int end = url.indexOf('?') < 0 ? url.length() : url.indexOf('?');
            int slash = url.lastIndexOf('/', end - 1);
            fetches.put(copy, new Named(url, versions -> {
                try (BlobStore store = BlobStore.open(url.substring(0, slash + 1), s3Endpoint)) {
                    return fetch(store, url.substring(slash + 1), copy, versions);
                }
            }));
        }
        int query = pattern.indexOf('?');
        String pathPattern = pattern.substring(pathStart, query < 0 ? pattern.length() : query);
        String local = java.net.URLDecoder.decode(pathPattern.replace("+", "%2B"), StandardCharsets.UTF_8);
        return fetchAll(folder, Path.of(folder + local), urls.size(), fetches, false, listener);
    }

    private static Result copyManifest(HttpBlobStore store, Path folder, Listener listener) throws IOException {
        StringBuilder local = new StringBuilder();
        int files = 0;
        // A URL on two rows (two ranges of one video) is copied once.
        Map<Path, Named> fetches = new LinkedHashMap<>();
        for (String line : store.manifest().lines().toList()) {
            String row = line.strip();
            if (row.isEmpty() || row.startsWith("#")) {
                continue;
            }
            String[] fields = row.split(",", 2);
            String url = fields[0].strip();
            if (url.equalsIgnoreCase("url") || url.equalsIgnoreCase("path")) {
                // A header row, kept: path,label,text says what a third field is.
                local.append("path").append(fields.length > 1 ? "," + fields[1] : "").append('\n');
                continue;
            }
            URI uri = store.resolve(url);
            Path copy = folder.resolve(uri.getHost() + "_" + uri.getPort())
                    .resolve(uri.getPath().replaceFirst("^/+", ""))
                    .normalize();
            if (!copy.startsWith(folder)) {
                throw new IOException(store.location() + ": URL " + url
                        + " leaves the copy folder (expected: a plain path)");
            }
            fetches.putIfAbsent(copy, new Named(uri.toString(), versions -> fetch(store, uri.toString(), copy, versions)));
            files++;
            local.append('"').append(copy.toAbsolutePath().toString().replace("\"", "\"\"")).append('"')
                    .append(fields.length > 1 ? "," + fields[1] : "").append('\n');
        }
        if (files == 0) {
            throw new IOException(store.location()
                    + ": no videos (expected: a CSV manifest url,label[,start,end[,text]])");
        }
        Path manifest = folder.resolve(MANIFEST);
        // The copies first: a manifest there names files that are.
        // A row's file that is gone (404) is one sample, failed as a missing local file is: the rest go on.
        Result copied = fetchAll(folder, manifest, files, fetches, true, listener);
        try (OutputStream out = Channels.newOutputStream(PrivateFiles.open(manifest, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING))) {
            out.write(local.toString().getBytes(StandardCharsets.UTF_8));
        }
        return copied;
    }

    /** One file's copy: the bytes downloaded, or -1 for a copy kept. */
    @FunctionalInterface
    private interface Fetch {
        long run(CopiedVersions versions) throws IOException;
    }

    /** A file's copy, with the name (URL or key) a failure names. */
    private record Named(String name, Fetch fetch) implements Fetch {
        @Override
        public long run(CopiedVersions versions) throws IOException {
            return fetch.run(versions);
        }
    }

    /**
     * Runs {@code fetches}, {@link #FILES_IN_FLIGHT} at once. Unless {@code keepGoing}, the first failure stops the
     * files not yet started and, once those in flight have ended, is thrown (the others' added to it): the copy fails
     * naming the file, and what was copied stays for the next try. With {@code keepGoing} (a manifest's rows) a file
     * the store no longer has ({@link NoSuchFileException}) is the result's {@code notCopied}, an older copy of it
     * removed so that nothing stale is read in its place, and the rest are copied; any other failure (the network,
     * credentials) fails the copy as without.
     */
    private static Result fetchAll(Path folder, Path source, int files, Map<Path, Named> fetches,
                                   boolean keepGoing, Listener listener) throws IOException {
        listener.planned(fetches.size());
        List<String> notCopied = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger downloaded = new AtomicInteger();
        AtomicInteger kept = new AtomicInteger();
        AtomicLong bytes = new AtomicLong();
        AtomicBoolean failed = new AtomicBoolean();
        Throwable first = null;
        // The pool is closed first (resources close in reverse), waiting for its threads: none writes a copy or the
        // versions' journal after this returns, nor after the journal is rewritten.
        try (CopiedVersions versions = CopiedVersions.of(folder);
             ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(FILES_IN_FLIGHT, fetches.size())),
                     Thread.ofPlatform().name("stoker-copy-", 0).daemon().factory())) {
            List<Future<?>> running = new ArrayList<>();
            for (Map.Entry<Path, Named> entry : fetches.entrySet()) {
                Named fetch = entry.getValue();
                running.add(pool.submit(() -> {
                    if (failed.get()) {
                        return null;
                    }
                    try {
                        long got = fetch.run(versions);
                        (got >= 0 ? downloaded : kept).incrementAndGet();
                        bytes.addAndGet(Math.max(0, got));
                        listener.fileDone(false, Math.max(0, got));
                    } catch (NoSuchFileException e) {
                        if (!keepGoing) {
                            failed.set(true);
                            throw e;
                        }
                        Files.deleteIfExists(entry.getKey());
                        String why = String.valueOf(e.getMessage());
                        notCopied.add(why.startsWith(fetch.name()) ? why : fetch.name() + ": " + why);
                        listener.fileDone(true, 0);
                    } catch (Throwable e) {
                        failed.set(true);
                        throw e;
                    }
                    return null;
                }));
            }
            try {
                for (Future<?> f : running) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        if (first == null) {
                            first = e.getCause();
                        } else {
                            first.addSuppressed(e.getCause());
                        }
                    }
                }
            } catch (InterruptedException e) {
                pool.shutdownNow();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("copy interrupted");
            }
            if (first != null) {
                pool.shutdownNow();
            }
        }
        if (first instanceof IOException io) {
            throw io;
        } else if (first instanceof RuntimeException runtime) {
            throw runtime;
        } else if (first instanceof Error error) {
            throw error;
        } else if (first != null) {
            throw new IOException(first);
        }
        List<String> sorted = new ArrayList<>(notCopied);
        sorted.sort(null);   // in the order the threads ended otherwise
        return new Result(source, files, downloaded.get(), bytes.get(), kept.get(), sorted);
    }

    /**
     * Copies {@code key} to {@code target} unless the copy there is the object now (its size, and its version where
     * {@code versions} and the store know it): the bytes downloaded, or -1 for a copy kept.
     */
    private static long fetch(BlobStore store, String key, Path target, CopiedVersions versions) throws IOException {
        BlobStore.Head head = store.head(key);
        long size = head.sizeBytes();
        if (versions.current(target, head)) {
            return -1;
        }
        PrivateFiles.createFolders(target.getParent());
        Path part = target.resolveSibling(target.getFileName() + ".part");
        try (OutputStream out = Channels.newOutputStream(PrivateFiles.open(part, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING))) {
            for (long at = 0; at < size; at += BLOCK_BYTES) {
                out.write(store.read(key, new ByteRange(at, Math.min(BLOCK_BYTES, size - at))));
            }
        }
        try {
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
        }
        versions.copied(target, head);
        return size;
    }
}
