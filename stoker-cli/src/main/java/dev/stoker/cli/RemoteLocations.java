package dev.stoker.cli;

import dev.stoker.bench.internal.Bytes;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.store.remote.RemoteVideos;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * {@code s3://bucket/prefix} and {@code http(s)://…} arguments. Picocli hands {@code stoker ingest}'s SRC and DEST
 * over as paths, which fold the {@code //} after the scheme into one {@code /}; a path that starts with such a scheme
 * is taken back as the location it was typed as (no local path starts with {@code s3:/}). The loader commands take
 * DATASET as a string instead: a folder URL's trailing slash matters there.
 */
final class RemoteLocations {
    private static final Pattern REMOTE = Pattern.compile("^(s3|https?):/+(.*)$");

    private RemoteLocations() {
    }

    /** The location {@code argument} names, or null for a local path. */
    static String of(Path argument) {
        if (argument == null) {
            return null;
        }
        var m = REMOTE.matcher(argument.toString());
        return m.matches() ? m.group(1) + "://" + m.group(2) : null;
    }

    /**
     * Copies the videos at {@code location} into the cache ({@code $STOKER_CACHE/remote/<hash of the location>}),
     * once: a second run finds them there. Returns what to open as the dataset.
     */
    static Path copyVideos(PrintWriter out, String location, URI s3Endpoint) throws IOException {
        Path folder = LoaderOptionsMixin.cacheDir().resolve("remote").resolve(hash(location));
        out.println("copying the videos of " + location + " into " + folder + " (files already there are kept)...");
        out.flush();
        RemoteVideos.Result copy;
        AtomicLong bytes = new AtomicLong();
        try (ProgressBar bar = new ProgressBar(out, LiveStatsView.stdoutIsTerminal(), "copy", "files",
                () -> Bytes.human(bytes.get()) + " downloaded")) {
            copy = RemoteVideos.copy(location, s3Endpoint, folder, new RemoteVideos.Listener() {
                @Override
                public void planned(int files) {
                    bar.total(files);
                }

                @Override
                public void fileDone(boolean failed, long downloaded) {
                    bytes.addAndGet(downloaded);
                    bar.done(failed);
                }
            });
        }
        out.printf(Locale.ROOT, "%d files: %d downloaded (%s), %d already there%n", copy.files(), copy.downloaded(),
                Bytes.human(copy.bytesDownloaded()), copy.kept());
        if (!copy.notCopied().isEmpty()) {
            out.printf(Locale.ROOT, "%d could not be copied, each failing as not found when loaded: %s%s%n",
                    copy.notCopied().size(), copy.notCopied().getFirst(), copy.notCopied().size() > 1 ? ", ..." : "");
        }
        return copy.source();
    }

    static String hash(String location) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(location.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
