package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote videos are copied several files at once (one at a time, each request's round trip left the link idle), each
 * file once; a manifest's file that cannot be copied is left out, named, and the others are copied.
 */
class RemoteCopyTest {
    @TempDir
    Path dir;

    @Test
    void filesAreCopiedSeveralAtOnceAndEachOnce() throws Exception {
        List<String> rows = served(12);
        rows.add("videos/v03.mp4,c1,0,1"); // a second range of a video: copied once
        Files.writeString(dir.resolve("served/train.csv"), String.join("\n", rows) + "\n");
        try (FolderHttpServer server = new FolderHttpServer(dir.resolve("served"), true).holdUntilInFlight(4)) {
            AtomicInteger planned = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            AtomicLong bytes = new AtomicLong();
            RemoteVideos.Result copy = RemoteVideos.copy(server.uri() + "train.csv", null, dir.resolve("copy"),
                    new RemoteVideos.Listener() {
                        @Override
                        public void planned(int files) {
                            planned.set(files);
                        }

                        @Override
                        public void fileDone(boolean failed, long downloaded) {
                            done.incrementAndGet();
                            bytes.addAndGet(downloaded);
                        }
                    });
            assertThat(server.mostInFlight()).as("GETs in flight at once").isEqualTo(4);
            assertThat(planned.get()).as("files told to a progress bar").isEqualTo(12);
            assertThat(done.get()).isEqualTo(12);
            assertThat(bytes.get()).isEqualTo(copy.bytesDownloaded());
            assertThat(copy.files()).isEqualTo(13);
            assertThat(copy.downloaded()).isEqualTo(12);
            assertThat(copy.kept()).isZero();
            assertThat(videoGets(server)).hasSize(12).doesNotHaveDuplicates();
            Dataset dataset = Dataset.open(copy.source());
            assertThat(dataset.size()).isEqualTo(13);
            for (int i = 0; i < 13; i++) {
                Path video = dataset.get(i).path();
                assertThat(Files.readString(video)).isEqualTo("video " + video.getFileName());
            }
        }
    }

    @Test
    void aManifestsFileGoneFromTheStoreIsLeftOutNamedWithItsOlderCopyAndTheRestAreKept() throws Exception {
        // One dead URL among many: one sample, failed when loaded as a missing file is, not the whole copy; and not
        // the copy an earlier run made of it, read in its place.
        List<String> rows = served(11);
        Files.writeString(dir.resolve("served/train.csv"), String.join("\n", rows) + "\n");
        try (FolderHttpServer server = new FolderHttpServer(dir.resolve("served"), true)) {
            assertThat(RemoteVideos.copy(server.uri() + "train.csv", null, dir.resolve("copy")).downloaded())
                    .isEqualTo(11);
            Files.delete(dir.resolve("served/videos/v05.mp4"));
            RemoteVideos.Result again = RemoteVideos.copy(server.uri() + "train.csv", null, dir.resolve("copy"));
            assertThat(again.files()).isEqualTo(11);
            assertThat(again.downloaded()).isZero();
            assertThat(again.kept()).isEqualTo(10);
            assertThat(again.notCopied()).singleElement().asString()
                    .startsWith(server.uri() + "videos/v05.mp4: ").contains("404");
            Dataset dataset = Dataset.open(again.source());
            assertThat(dataset.size()).isEqualTo(11);
            assertThat(dataset.entries()).filteredOn(e -> !Files.exists(e.path())).singleElement()
                    .satisfies(e -> assertThat(e.path().getFileName().toString()).isEqualTo("v05.mp4"));
        }
    }

    private static List<String> videoGets(FolderHttpServer server) {
        synchronized (server.log) {
            return server.log.stream().filter(get -> get.startsWith("videos/")).toList();
        }
    }

    /** {@code n} small files under {@code served/videos}; the manifest rows naming them, two classes. */
    private List<String> served(int n) throws IOException {
        Path videos = Files.createDirectories(dir.resolve("served/videos"));
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = String.format("v%02d.mp4", i);
            Files.writeString(videos.resolve(name), "video " + name);
            rows.add("videos/" + name + ",c" + i % 2);
        }
        return rows;
    }
}
