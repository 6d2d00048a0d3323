package dev.stoker.store.remote;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.MadeOnce;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * 24 videos of the demo generator (3 classes of 8 clips of 2 s, H.264 and VP8) ingested once per test JVM into small
 * video shards (short side 96, 64 KiB shards: several shards, several GOPs a sample), the local side every remote
 * read is compared with. Made here, so that the remote tests run on any checkout.
 */
final class SampleShards {
    private static final MadeOnce<Path> FOLDER = new MadeOnce<>(SampleShards::ingest);

    private SampleShards() {
    }

    static Path folder() { return FOLDER.get(); }

    private static Path ingest() throws IOException {
        Path dir = Files.createTempDirectory("stoker-remote-test");
        dir.toFile().deleteOnExit();
        Path videos = DemoFolders.of(DemoSpec.small(3, 8, 2.0));
        Path dest = dir.resolve("shards");
        IngestOptions options = IngestOptions.defaults().withFormat(IngestOptions.Format.VIDEO).withShortSide(96)
                .withShardSize(64L << 10);
        Ingest.run(Dataset.open(videos), dest, options, 2, IngestListener.NONE);
        return dest;
    }
}
