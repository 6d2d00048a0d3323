package dev.stoker.loader.dataset;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Reads {@code ROOT/<class>/<video>} trees, the layout Kinetics, UCF101 and HMDB51 ship in. */
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
            for (Path video : sortedChildren(classDir, false)) {
                entries.add(new VideoEntry(video, label, className));
            }
        }
        if (entries.isEmpty()) {
            throw new InvalidDatasetException("dataset root " + root + " has " + classDirs.size()
                    + " class folders but no video files in them (expected: ROOT/<class>/<video>)");
        }
        return new Dataset(entries, classNames);
    }

    /** Non-hidden subdirectories or regular files, sorted by name so that order is the same everywhere. */
    private static List<Path> sortedChildren(Path dir, boolean directories) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path child : stream) {
                if (child.getFileName().toString().startsWith(".")) {
                    continue;
                }
                if (directories ? Files.isDirectory(child) : Files.isRegularFile(child)) {
                    children.add(child);
                }
            }
        }
        children.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return children;
    }
}
