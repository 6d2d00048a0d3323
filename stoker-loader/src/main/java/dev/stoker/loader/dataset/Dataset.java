package dev.stoker.loader.dataset;

import dev.stoker.loader.dataset.internal.BracePattern;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An ordered list of labelled videos and the class names their labels index.
 *
 * <p>Order is deterministic for a given source (directory listings are sorted), so that a sample's
 * index names the same video on every run and every machine; samplers and resumable epochs rely on it.
 *
 * @param entries the videos, in a stable order
 * @param classNames label {@code i} stands for {@code classNames.get(i)}
 */
public record Dataset(List<VideoEntry> entries, List<String> classNames) {

    public Dataset {
        entries = List.copyOf(entries);
        classNames = List.copyOf(classNames);
        for (VideoEntry entry : entries) {
            if (entry.label() >= classNames.size()) {
                throw new IllegalArgumentException("label of " + entry.path() + ": " + entry.label()
                        + " (expected: 0.." + (classNames.size() - 1) + ")");
            }
        }
    }

    /**
     * Opens a dataset: a directory is read as {@code ROOT/<class>/<video>} (see {@link #fromDirectory}) or, when it
     * has no class folders but tar archives, as WebDataset shards (see {@link #fromTarArchives}); a {@code .tar} file
     * as one such shard, a {@code .csv} file as a manifest (see {@link #fromCsv}).
     *
     * @throws InvalidDatasetException if the source is malformed or holds no videos
     */
    public static Dataset open(Path source) throws IOException {
        Objects.requireNonNull(source, "source");
        if (Files.isDirectory(source)) {
            return fromDirectory(source);
        }
        if (!Files.exists(source)) {
            if (BracePattern.isPattern(source.toString())) {
                return fromTarArchives(source); // train-{000000..000146}.tar: WebDataset's way of naming shards
            }
            throw new NoSuchFileException(source.toString(), null, "dataset source does not exist");
        }
        String name = source.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return fromCsv(source);
        }
        if (name.endsWith(".tar")) {
            return fromTarArchives(source);
        }
        if (name.endsWith(".tar.gz") || name.endsWith(".tgz") || name.endsWith(".tar.zst") || name.endsWith(".tar.xz")) {
            throw new InvalidDatasetException("dataset source: " + source + " is a compressed tar archive, which cannot"
                    + " be read at random (expected: an uncompressed .tar; video inside is compressed already, so"
                    + " compressing the archive gains little)");
        }
        throw new InvalidDatasetException("dataset source: " + source
                + " (expected: a directory ROOT/<class>/<video>, a .csv manifest, or .tar archives of WebDataset"
                + " samples)");
    }

    /**
     * Whether a file of this name is a frame of a video stored as a folder of images: a {@code .jpg}, {@code .jpeg} or
     * {@code .png} (any case), not hidden.
     */
    public static boolean isFrameImage(String fileName) {
        if (fileName.startsWith(".")) {
            return false;
        }
        String lower = fileName.toLowerCase(Locale.ROOT);
        return lower.endsWith(".jpg") || lower.endsWith(".jpeg") || lower.endsWith(".png");
    }

    /**
     * Reads the Kinetics layout {@code ROOT/<class>/<video>}: every non-hidden subdirectory is a class,
     * labelled by its index among the sorted class names; every non-hidden regular file in it is a video, and so is
     * every folder in it that holds images ({@link #isFrameImage}: a video stored as its frames), sorted by name, but
     * for a {@code .txt} file named as a video less its extension ({@code clip.txt} beside {@code clip.mp4}), which is
     * that video's text ({@link VideoEntry#text()}). Files directly under ROOT (such as a README) are ignored, and so
     * are folders named {@code .*} or {@code @*} (a NAS's thumbnails, {@code @eaDir}).
     */
    public static Dataset fromDirectory(Path root) throws IOException {
        return DirectoryTreeLoader.load(root);
    }

    /**
     * Reads WebDataset shards: {@code source} is a {@code .tar} archive, a folder of them (taken in name order), or a
     * brace pattern naming them as WebDataset does ({@code shards/train-{000000..000146}.tar}, in its order). A
     * member with a video extension ({@code <key>.mp4}, {@code .mkv}, {@code .webm}, …) is a video, read in place and
     * named {@code <archive>/<member>}; its sample's {@code <key>.cls} member is its label (an integer, or a class name
     * numbered in sorted order, as in a manifest), and its {@code <key>.txt} member, if any, its text. With no
     * {@code .cls} in any sample, every video is labelled 0 (class {@code "unlabelled"}); some labelled and some not is
     * refused.
     */
    public static Dataset fromTarArchives(Path source) throws IOException {
        Objects.requireNonNull(source, "source");
        List<Path> archives;
        if (!Files.exists(source) && BracePattern.isPattern(source.toString())) {
            archives = TarArchivesLoader.archivesNamed(source);
        } else {
            archives = Files.isDirectory(source) ? TarArchivesLoader.archivesIn(source) : List.of(source);
        }
        if (archives.isEmpty()) {
            throw new InvalidDatasetException("dataset source " + source + " holds no .tar archive");
        }
        return TarArchivesLoader.load(archives, source);
    }

    /**
     * Reads a manifest with lines {@code path,label[,start,end[,text]]}, or {@code path,label,text} under that header
     * (the text: {@link VideoEntry#text()}). Paths are relative to the manifest's folder unless absolute. Labels are
     * either all integers (class names become {@code "0"}, {@code "1"}, …) or all class names (labelled by index among
     * the sorted names). An optional header line (first field {@code path} or second field {@code label}), blank lines
     * and lines starting with {@code #} are skipped; fields may be double-quoted.
     */
    public static Dataset fromCsv(Path manifest) throws IOException {
        return CsvManifestLoader.load(manifest);
    }

    public int size() { return entries.size(); }

    public VideoEntry get(int index) {
        return entries.get(index);
    }
}
