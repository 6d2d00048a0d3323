package dev.stoker.djl;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A small demo dataset (4 classes × 4 clips of 2 s), made once per test JVM, and small clips of it. */
final class DemoClips {
    static final DemoSpec SPEC = DemoSpec.small(4, 4, 2.0);
    private static Path root;

    private DemoClips() {
    }

    static synchronized Path root() {
        if (root == null) {
            try {
                Path dir = Files.createTempDirectory("stoker-djl-demo");
                dir.toFile().deleteOnExit();
                root = DemoDataset.create(dir.resolve("demo"), SPEC);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return root;
    }

    /** 8 frames (stride 2) of 56×56, batches of {@code batch}, seeded. */
    static LoaderOptions options(int batch, BatchLayout layout, int epochs) {
        return LoaderOptions.builder().clip(8, 2).size(56, 56, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(batch, false, layout).order(7, true, epochs).build();
    }
}
