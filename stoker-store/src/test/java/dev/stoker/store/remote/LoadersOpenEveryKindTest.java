package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Loaders;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.store.ClipReader;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.ExactResume;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door opens every kind of dataset with the loader of its kind, found on the class path (stoker-video's and
 * stoker-store's providers): video files with the video loader, a shard folder and shards over HTTP (read in place)
 * with the shard loader, each delivering what that loader opened directly delivers, resuming exactly from a state
 * through the {@code Opening}; the shard loader it opened closes its shards. What no loader opens, and GPU decoding
 * for host batches, are errors that name what was expected.
 */
class LoadersOpenEveryKindTest {

    /** The videos {@link SampleShards} were ingested from. */
    private static Path videos() {
        return DemoFolders.of(DemoSpec.small(3, 8, 2.0));
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 96)
                .batch(5, false, BatchLayout.NTHWC).order(7, true, 2).build();
    }

    private static HostBatchLoader open(String location, Opening opening) {
        try {
            return Loaders.open(location, options(), opening);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aFolderOfVideoFilesOpensTheVideoLoader() throws IOException {
        try (HostBatchLoader loader = Loaders.open(videos().toString(), options())) {
            assertThat(loader).isInstanceOf(VideoLoader.class);
            assertThat(loader.classNames()).isEqualTo(Dataset.open(videos()).classNames());
        }
        ExactResume.Run direct = ExactResume.run(VideoLoader.open(Dataset.open(videos()), options()), Integer.MAX_VALUE);
        ExactResume.Run front = ExactResume.run(open(videos().toString(), Opening.defaults()), Integer.MAX_VALUE);
        assertThat(front.batches()).isEqualTo(direct.batches()).hasSize(10);
    }

    @Test
    void aShardFolderOpensTheShardLoaderWhichClosesItsShardsAfterItself() throws IOException {
        Path folder = SampleShards.folder();
        ShardDataset opened;
        try (HostBatchLoader loader = Loaders.open(folder.toString(), options())) {
            assertThat(loader).isInstanceOf(ShardLoader.class);
            opened = ((ShardLoader) loader).dataset();
            assertThat(loader.classNames()).isEqualTo(opened.classNames()).hasSize(3);
        }
        try (ClipReader reader = opened.newReader(); Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate(4L * 64 * 64 * 3);
            assertThatThrownBy(() -> reader.read(0, new ClipRequest(ClipSpec.frames(0, 4, 2),
                    Resize.centerCrop(96, 64, 64), into)))
                    .as("the shards' mappings went with the loader").isInstanceOf(IllegalStateException.class);
        }
        ExactResume.Run direct;
        try (ShardDataset shards = ShardDataset.open(folder)) {
            direct = ExactResume.run(ShardLoader.open(shards, options()), Integer.MAX_VALUE);
        }
        assertThat(ExactResume.run(open(folder.toString(), Opening.defaults()), Integer.MAX_VALUE).batches())
                .isEqualTo(direct.batches()).hasSize(10);
    }

    @Test
    void shardsOverHttpAreReadInPlaceByTheShardLoader() throws IOException {
        Path folder = SampleShards.folder();
        ExactResume.Run local = ExactResume.run(open(folder.toString(), Opening.defaults()), Integer.MAX_VALUE);
        try (FolderHttpServer server = new FolderHttpServer(folder, true)) {
            try (HostBatchLoader loader = Loaders.open(server.uri().toString(), options())) {
                assertThat(((ShardLoader) loader).dataset().isRemote()).isTrue();
            }
            assertThat(ExactResume.run(open(server.uri().toString(), Opening.defaults()), Integer.MAX_VALUE).batches())
                    .isEqualTo(local.batches());
        }
    }

    @Test
    void aLoaderOpenedAtTheFrontDoorResumesExactlyFromAState() {
        for (String location : new String[] {videos().toString(), SampleShards.folder().toString()}) {
            ExactResume.assertResumesExactly(() -> open(location, Opening.defaults()),
                    saved -> open(location, Opening.defaults().resumingFrom(saved)), 1, 5, 7);
        }
    }

    @Test
    void whatNoLoaderOpensIsAnErrorNamingWhatEachOpens(@TempDir Path dir) {
        assertThatThrownBy(() -> Loaders.open("ftp://host/videos", options()))
                .isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("location: 'ftp://host/videos' (expected: ")
                .hasMessageContaining("shards written by stoker ingest")
                .hasMessageContaining("CSV manifest of video files");
        Path missing = dir.resolve("no-such-dataset");
        assertThatThrownBy(() -> Loaders.open(missing.toString(), options()))
                .isInstanceOf(NoSuchFileException.class).hasMessageContaining(missing.toString());
        // "" is a path the video loader would take: the working directory, a run on data nobody named.
        for (String blank : new String[] {"", "  "}) {
            assertThatThrownBy(() -> Loaders.open(blank, options())).isInstanceOf(InvalidValueException.class)
                    .hasMessage("location: '" + blank + "' (expected: a dataset: a folder of videos, a manifest, a shard"
                            + " folder or a URL)");
        }
        assertThatThrownBy(() -> Loaders.open(null, options())).isInstanceOf(NullPointerException.class)
                .hasMessage("location");
        assertThatThrownBy(() -> Loaders.open(videos().toString(), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("options");
    }

    @Test
    void decodingOnAGpuIsNoLoaderOfHostBatches() {
        LoaderOptions nvdec = options().toBuilder().decodeOn(DecodeDevice.NVDEC, 0).build();
        assertThatThrownBy(() -> Loaders.open(SampleShards.folder().toString(), nvdec))
                .isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("decode.device: nvdec (expected: cpu or auto for batches in host memory");
    }
}
