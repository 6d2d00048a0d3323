package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ShardDataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebDataset's shard URLs, {@code https://host/shards/train-{000..001}.tar}: each archive the pattern names is copied
 * into the folder at its URL's path, once (a second copy finds them there), and the same pattern over the copies is a
 * dataset of WebDataset shards in the pattern's order; an archive the server does not have fails the copy, naming it.
 */
class RemoteArchivePatternTest {
    @TempDir
    Path dir;

    @Test
    void theArchivesAPatternNamesAreCopiedOnceAndReadAsShards() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served/shards"));
        for (int s = 0; s < 2; s++) {
            Path source = Files.createDirectories(dir.resolve("src" + s));
            Files.writeString(source.resolve("k" + s + ".mp4"), "video " + s);
            Files.writeString(source.resolve("k" + s + ".cls"), Integer.toString(s));
            Process tar = new ProcessBuilder("tar", "-cf", served.resolve("train-00" + s + ".tar").toString(), "-C",
                    source.toString(), "k" + s + ".mp4", "k" + s + ".cls").inheritIO().start();
            assertThat(tar.waitFor()).isZero();
        }
        try (FolderHttpServer server = new FolderHttpServer(dir.resolve("served"), true)) {
            String pattern = server.uri() + "shards/train-{000..001}.tar";
            Path copy = dir.resolve("copy");
            RemoteVideos.Result first = RemoteVideos.copy(pattern, null, copy);
            assertThat(first.files()).isEqualTo(2);
            assertThat(first.downloaded()).isEqualTo(2);
            assertThat(RemoteVideos.copy(pattern, null, copy).downloaded()).as("already there").isZero();
            // A label changed inside an archive: the tar's padding keeps its size, its ETag tells.
            Path changed = served.resolve("train-001.tar");
            byte[] archive = Files.readAllBytes(changed);
            String text = new String(archive, java.nio.charset.StandardCharsets.ISO_8859_1);
            archive[text.indexOf("video 1")] = 'V';
            Files.write(changed, archive);
            Files.setLastModifiedTime(changed, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
            RemoteVideos.Result again = RemoteVideos.copy(pattern, null, copy);
            assertThat(again.downloaded()).as("the changed archive, of the same size, copied again").isEqualTo(1);
            assertThat(Files.readAllBytes(copy.resolve("shards/train-001.tar"))).isEqualTo(archive);
            Dataset dataset = Dataset.open(first.source());
            assertThat(dataset.entries()).extracting(e -> copy.relativize(e.path()).toString())
                    .containsExactly("shards/train-000.tar/k0.mp4", "shards/train-001.tar/k1.mp4");
            assertThat(dataset.classNames()).containsExactly("0", "1");
            // In the pattern's order, and with a query after it (as a Hugging Face URL has).
            RemoteVideos.Result reversed = RemoteVideos.copy(server.uri() + "shards/train-{001,000}.tar?download=true",
                    null, dir.resolve("copy3"));
            assertThat(Dataset.open(reversed.source()).entries()).extracting(e -> e.path().getFileName().toString())
                    .containsExactly("k1.mp4", "k0.mp4");
            assertThatThrownBy(() -> RemoteVideos.copy(server.uri() + "shards/train-{000..002}.tar", null,
                    dir.resolve("copy2"))).isInstanceOf(IOException.class).hasMessageContaining("train-002.tar");
        }
    }

    @Test
    void bracesInAFolderThatIsThereOrInAPrefixOfVideosAreNoPattern() throws IOException {
        Path shards = Files.createDirectories(dir.resolve("runs/lr{0.1}/shards"));
        Files.writeString(shards.resolve(ShardDataset.MANIFEST), "{}");
        assertThat(ShardDataset.isShardDataset(shards.toString(), null)).isTrue();
        assertThat(RemoteVideos.isArchivePattern("s3://bucket/exp{1}/videos")).isFalse();
        assertThat(RemoteVideos.isArchivePattern("https://host/s/train-{0..1}.tar?download=true")).isTrue();
    }
}
