package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV manifest of URLs behind {@code https://} is copied with the files it names, into a local manifest that keeps
 * every field after the URL and the header row, so a caption (the fifth field, or the third under a
 * {@code path,label,text} header) reaches the dataset as the remote manifest gave it.
 */
class RemoteManifestTest {
    @TempDir
    Path dir;

    @Test
    void aCopiedManifestKeepsItsHeaderAndEachRowsText() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served/videos"));
        Files.writeString(served.resolve("a.mp4"), "video a");
        Files.writeString(served.resolve("b.mp4"), "video b");
        Files.writeString(dir.resolve("served/headed.csv"), "url,label,text\nvideos/a.mp4,dog,\"a dog, running\"\n"
                + "videos/b.mp4,cat,\n");
        Files.writeString(dir.resolve("served/ranged.csv"), "videos/a.mp4,dog,1,2,a dog sits\n");
        try (FolderHttpServer server = new FolderHttpServer(dir.resolve("served"), true)) {
            RemoteVideos.Result headed = RemoteVideos.copy(server.uri() + "headed.csv", null, dir.resolve("h"));
            assertThat(headed.files()).isEqualTo(2);
            Dataset dataset = Dataset.open(headed.source());
            assertThat(dataset.entries()).extracting(VideoEntry::text)
                    .containsExactly(Optional.of("a dog, running"), Optional.empty());
            assertThat(Files.readString(dataset.get(0).path())).isEqualTo("video a");
            RemoteVideos.Result ranged = RemoteVideos.copy(server.uri() + "ranged.csv", null, dir.resolve("r"));
            assertThat(Dataset.open(ranged.source()).get(0).text()).hasValue("a dog sits");
        }
    }
}
