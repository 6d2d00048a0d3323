package dev.stoker.store.remote;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.store.IngestOptions;
import dev.stoker.store.MadeOnce;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.video.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The real sample videos of {@code ../shared/videos} (the 23 healthy ones) ingested once per test JVM into small
 * video shards (short side 96, 256 KiB shards: several shards, several GOPs a sample), the local side every remote
 * read is compared with.
 */
final class SharedSampleShards {
    private static final MadeOnce<Path> FOLDER = new MadeOnce<>(SharedSampleShards::ingest);

    private SharedSampleShards() {
    }

    static Path folder() {
        return FOLDER.get();
    }

    private static Path ingest() throws IOException {
        String shared = System.getProperty("stoker.shared.videos");
        assumeTrue(shared != null, "system property stoker.shared.videos is not set (surefire sets it)");
        Path root = Path.of(shared).toAbsolutePath().normalize();
        assumeTrue(Files.isDirectory(root), "shared sample videos not found at " + root);
        List<Path> videos;
        try (Stream<Path> files = Files.list(root)) {
            videos = files.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".txt")).sorted().toList();
        }
        assumeTrue(!videos.isEmpty(), "no sample videos under " + root);
        Path dir = Files.createTempDirectory("stoker-remote-test");
        dir.toFile().deleteOnExit();
        Path csv = dir.resolve("videos.csv");
        Files.writeString(csv, videos.stream().map(v -> v + "," + (v.getFileName().toString().endsWith(".mp4") ? "mp4" : "other"))
                .collect(Collectors.joining("\n", "", "\n")));
        Path dest = dir.resolve("shards");
        IngestOptions options = IngestOptions.defaults().withFormat(IngestOptions.VIDEO).withShortSide(96)
                .withShardSize(256L << 10);
        Ingest.run(Dataset.open(csv), dest, options, 2, IngestListener.NONE);
        return dest;
    }
}
