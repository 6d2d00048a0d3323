package dev.stoker.loader.dataset;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads {@code ROOT/<class>/<video>} trees, the layout Kinetics, UCF101 and HMDB51 ship in. A video is a file, or a
 * folder of its frames as images ({@code ROOT/<class>/<video>/img_00001.jpg}: mmaction2's rawframes).
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
            throw new InvalidDatasetException("dataset root " + root
                    + " has no class folders (expected: ROOT/<class>/<video>)");
        }
        List<String> classNames = new ArrayList<>(classDirs.size());
        List<VideoEntry> entries = new ArrayList<>();
        for (int label = 0; label < classDirs.size(); label++) {
            Path classDir = classDirs.get(label);
            String className = classDir.getFileName().toString();
            classNames.add(className);
            for (Path video : sortedChildren(classDir, null)) {
                entries.add(new VideoEntry(video, label, className));
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
     * Non-hidden subdirectories ({@code directories} true), regular files (false) or both (null), sorted by name so
     * that order is the same everywhere.
     */
    private static List<Path> sortedChildren(Path dir, Boolean directories) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path child : stream) {
                if (child.getFileName().toString().startsWith(".")) {
                    continue;
                }
                boolean folder = Files.isDirectory(child);
                if (directories == null ? folder || Files.isRegularFile(child) : directories ? folder
                        : Files.isRegularFile(child)) {
                    children.add(child);
                }
            }
        }
        children.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return children;
    }
}
