package dev.stoker.video.demo;

import dev.stoker.loader.dataset.Dataset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Demo datasets for tests that only read them: made once a test JVM per spec (each takes seconds to encode) and
 * deleted when the JVM exits.
 */
public final class DemoFolders {
    private static final Map<DemoSpec, Path> MADE = new HashMap<>();
    private static Path root;

    private DemoFolders() {
    }

    /** The folder of a demo dataset made to {@code spec}. */
    public static synchronized Path of(DemoSpec spec) {
        try {
            if (root == null) {
                root = Files.createTempDirectory("stoker-demo-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(root)));
            }
            Path made = MADE.get(spec);
            if (made == null) {
                made = DemoDataset.create(root.resolve("demo-" + MADE.size()), spec);
                MADE.put(spec, made);
            }
            return made;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the demo dataset " + spec, e);
        }
    }

    /** The demo dataset made to {@code spec}, opened. */
    public static Dataset dataset(DemoSpec spec) {
        try {
            return Dataset.open(of(spec));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp folder left behind
        }
    }
}
