package dev.stoker.store;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The small demo dataset (2 classes x 2 clips of 2 s, 340x256; clip 3 is VP8), made once per test JVM. */
public final class DemoSource {
    private static final MadeOnce<Path> ROOT = new MadeOnce<>(() -> {
        Path dir = Files.createTempDirectory("stoker-store-demo");
        dir.toFile().deleteOnExit();
        return DemoDataset.create(dir, DemoSpec.small(2, 2, 2.0));
    });

    private DemoSource() {
    }

    static Path root() { return ROOT.get(); }

    public static Dataset dataset() {
        try {
            return Dataset.open(root());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ingests the demo dataset into {@code dest}: short side 112, small shards so there are several. */
    public static Ingest.Result ingest(Path dest, IngestOptions.Format format) throws IOException {
        return Ingest.run(dataset(), dest, options(format), 2, IngestListener.NONE);
    }

    static IngestOptions options(IngestOptions.Format format) {
        long shardBytes = switch (format) {
            case RAW -> 4L << 20;
            case JPEG -> 200L << 10;
            default -> 16L << 10;
        };
        return IngestOptions.defaults().withFormat(format).withShortSide(112).withShardSize(shardBytes);
    }
}
