package dev.stoker.loader.dataset;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Reads {@code ROOT/<class>/<video>} trees, the layout Kinetics, UCF101 and HMDB51 ship in. A video is a file, or a
 * folder of its frames as images ({@code ROOT/<class>/<video>/img_00001.jpg}: mmaction2's rawframes); a folder with no
 * image in it is not a video. A {@code .txt} file named as a video is less its extension ({@code clip.txt} beside
 * {@code clip.mp4}, or beside the folder {@code clip/}) is that video's text ({@link SampleText}), not a video.
 */
final class DirectoryTreeLoader {

    private DirectoryTreeLoader() {
    }

    static Dataset load(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new InvalidDatasetException("dataset root: " + root + " (expected: a directory)");
        }
        List<Path> classDirs = sortedChildren(root, true);
        if (classDirs.isEmpty()) {
            List<Path> archives = TarArchivesLoader.archivesIn(root);
            if (!archives.isEmpty()) {
                return TarArchivesLoader.load(archives, root); // WebDataset shards: ROOT/*.tar
            }
            throw new InvalidDatasetException("dataset root " + root
                    + " has no class folders (expected: ROOT/<class>/<video>, or .tar archives of WebDataset samples)");
        }
        List<String> classNames = new ArrayList<>(classDirs.size());
        List<VideoEntry> entries = new ArrayList<>();
        for (int label = 0; label < classDirs.size(); label++) {
            Path classDir = classDirs.get(label);
            String className = classDir.getFileName().toString();
            classNames.add(className);
            List<Path> children = sortedChildren(classDir, null);
            Map<Path, Path> textOf = textsOf(children);
            Set<Path> textFiles = new HashSet<>(textOf.values());
            for (Path video : children) {
                if (textFiles.contains(video)) {
                    continue;
                }
                Path text = textOf.get(video);
                entries.add(new VideoEntry(video, label, className, OptionalDouble.empty(), OptionalDouble.empty(),
                        text == null ? Optional.empty() : SampleText.read(text)));
            }
        }
        if (entries.isEmpty()) {
            throw new InvalidDatasetException("dataset root " + root + " has " + classDirs.size()
                    + " class folders but no videos in them (expected: ROOT/<class>/<video>, a video file or a folder of"
                    + " its frames)");
        }
        return new Dataset(entries, classNames);
    }

    /**
     * Non-hidden subdirectories ({@code directories} true), or videos (null): files (dangling links and pipes too, to
     * fail by name), and folders that hold frame images (not named {@code @*}: a NAS's thumbnail folders); sorted by
     * name so that order is the same everywhere.
     */
    private static List<Path> sortedChildren(Path dir, Boolean directories) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path child : stream) {
                String name = child.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                BasicFileAttributes attributes;
                try {
                    attributes = Files.readAttributes(child, BasicFileAttributes.class);
                } catch (IOException e) {
                    // A dangling link (or an entry gone since the listing): among videos it is listed, so that it
                    // fails as not found, counted, instead of leaving the dataset unseen.
                    if (directories == null) {
                        children.add(child);
                    }
                    continue;
                }
                // A named pipe or device too: the fetch refuses it by name (reading it would wait forever).
                boolean video = attributes.isRegularFile() || attributes.isOther()
                        || (attributes.isDirectory() && !name.startsWith("@") && holdsFrames(child));
                boolean take = directories != null ? attributes.isDirectory() : video;
                if (take) {
                    children.add(child);
                }
            }
        }
        children.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return children;
    }

    /**
     * Each video among a class folder's {@code children} that has a {@code .txt} beside it, by its {@link #stem}, and
     * that text file. A {@code .txt} that pairs with nothing stays a video, as any other file does, and fails as one
     * (counted); so do two that would pair with one another ({@code a.txt} beside {@code a.TXT}): a text is never a
     * video's pair.
     */
    private static Map<Path, Path> textsOf(List<Path> children) {
        Map<String, Path> byStem = new HashMap<>();
        for (Path child : children) {
            String name = child.getFileName().toString();
            if (SampleText.isTextName(name) && Files.isRegularFile(child)) {
                byStem.put(name.substring(0, name.length() - SampleText.EXTENSION.length() - 1), child);
            }
        }
        Map<Path, Path> textOf = new HashMap<>();
        if (byStem.isEmpty()) {
            return textOf;   // the common tree: no text, and no stat a video to find one
        }
        for (Path child : children) {
            Path text = SampleText.isTextName(child.getFileName().toString()) ? null : byStem.get(stem(child));
            if (text != null) {
                textOf.put(child, text);
            }
        }
        return textOf;
    }

    /** A video's name less its extension ({@code clip} for {@code clip.mp4}); a folder of frames' whole name. */
    private static String stem(Path video) {
        String name = video.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 && !Files.isDirectory(video) ? name.substring(0, dot) : name;
    }

    /** Whether {@code folder} holds a frame image: it is a video stored as its frames. Stops at the first. */
    private static boolean holdsFrames(Path folder) {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path child : stream) {
                if (Dataset.isFrameImage(child.getFileName().toString())) {
                    return true;
                }
            }
        } catch (IOException e) {
            return true; // unreadable: a video whose fetch will say why, counted, rather than a dataset that fails to open
        }
        return false;
    }
}
