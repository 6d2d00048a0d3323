package dev.stoker.video;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.video.demo.MixedVideos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;

/** The shared real-world sample videos, located through the {@code stoker.shared.videos} property. */
final class SampleVideos {
    /** One MANIFEST.txt row. */
    record Entry(String file, int codedWidth, int codedHeight, int manifestRotation, int decodedFrames, String pixelFormat) {
        Path path() {
            return directory().resolve(file);
        }

        /** Clockwise display rotation: the manifest lists FFmpeg's counter-clockwise angle. */
        int clockwiseRotation() {
            return Math.floorMod(-manifestRotation, 360);
        }
    }

    private SampleVideos() {
    }

    /** The sample folder; skips the calling test when it is absent. */
    static Path directory() {
        String property = System.getProperty("stoker.shared.videos");
        assumeTrue(property != null, "system property stoker.shared.videos is not set (surefire sets it)");
        Path dir = Path.of(property);
        assumeTrue(Files.isDirectory(dir), "shared sample videos not found at " + dir.toAbsolutePath());
        return dir;
    }

    static Path file(String name) {
        Path path = directory().resolve(name);
        assumeTrue(Files.isRegularFile(path), "sample video missing: " + path);
        return path;
    }

    /** Healthy files (not under damaged/) with their expected properties. */
    static List<Entry> healthy() {
        List<Entry> entries = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(directory().resolve("MANIFEST.txt"))) {
                if (line.startsWith("#") || line.isBlank() || line.startsWith("damaged/")) {
                    continue;
                }
                String[] columns = line.split("\\|");
                String[] size = columns[8].strip().split("x");
                entries.add(new Entry(columns[0].strip(), Integer.parseInt(size[0]), Integer.parseInt(size[1]),
                        Integer.parseInt(columns[9].strip()), Integer.parseInt(columns[12].strip()), columns[7].strip()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    /**
     * Videos for a check that holds for any video: {@link MixedVideos} (made here, so the check runs on any checkout)
     * and, where the shared folder is, the named third-party samples too; each named by its file.
     */
    static Stream<Named<Path>> madeAndShared(String... sharedNames) {
        String property = System.getProperty("stoker.shared.videos");
        Stream<Path> shared = property == null ? Stream.empty()
                : Stream.of(sharedNames).map(name -> Path.of(property, name)).filter(Files::isRegularFile);
        return Stream.concat(MixedVideos.files().stream(), shared).map(p -> Named.of(p.getFileName().toString(), p));
    }

    /** Files under damaged/. */
    static List<Path> damaged() {
        try (var files = Files.list(directory().resolve("damaged"))) {
            return files.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
