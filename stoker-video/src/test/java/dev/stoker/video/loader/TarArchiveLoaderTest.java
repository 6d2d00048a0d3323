package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.loader.dataset.internal.TarIndex;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.video.Video;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebDataset shards (tar archives of {@code <key>.mp4} and {@code <key>.cls}, written by GNU tar) load in place as
 * the files they hold would: the same clips and pixels in the same batches, with the fetch in a child JVM, resumed
 * exactly; a damaged member or an archive cut short is counted with the member's path, and the rest loads.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TarArchiveLoaderTest {
    @TempDir
    static Path dir;
    /** The demo videos as WebDataset shards, and the same files as a manifest in the same order, labelled alike. */
    static Path shards;
    static Path manifest;

    @BeforeAll
    static void archives() throws Exception {
        Dataset demo = Dataset.open(DemoFolders.of(DemoSpec.small(2, 3, 2.0)));
        shards = Files.createDirectories(dir.resolve("shards"));
        Path flat = Files.createDirectories(dir.resolve("flat"));
        StringBuilder rows = new StringBuilder();
        List<List<String>> perShard = List.of(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < demo.size(); i++) {
            VideoEntry e = demo.get(i);
            String file = e.path().getFileName().toString();
            int dot = file.lastIndexOf('.');
            // The key may not hold a dot: WebDataset's extension is what follows the first.
            String key = (e.className() + "_" + file.substring(0, dot)).replaceAll("[^A-Za-z0-9_-]", "_");
            String name = key + file.substring(dot);
            Files.copy(e.path(), flat.resolve(name));
            Files.writeString(flat.resolve(key + ".cls"), Integer.toString(e.label()));
            perShard.get(i * 2 / demo.size()).addAll(List.of(name, key + ".cls"));
            rows.append("flat/").append(name).append(',').append(e.label());
            if (i % 3 != 1) {   // a caption for most samples; a sample without one has no text
                String caption = "clip " + i + ", \u00e9t\u00e9 \u6f22 \"quoted\"";
                Files.writeString(flat.resolve(key + ".txt"), caption);
                perShard.get(i * 2 / demo.size()).add(key + ".txt");
                rows.append(",,,\"").append(caption.replace("\"", "\"\"")).append('"');
            }
            rows.append('\n');
        }
        for (int s = 0; s < 2; s++) {
            List<String> command = new ArrayList<>(List.of("tar", "-cf", shards.resolve("train-00" + s + ".tar").toString(),
                    "-C", flat.toString()));
            command.addAll(perShard.get(s));
            tar(command);
        }
        manifest = dir.resolve("files.csv");
        Files.writeString(manifest, rows);
    }

    static void tar(List<String> command) throws IOException, InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as("%s: %s", command, out).isTrue();
        } catch (IOException e) {
            Assumptions.abort("GNU tar writes the archives these tests read: " + e.getMessage());
        }
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().order(11, true, 2).clip(4, 2).batch(2, false, BatchLayout.NTHWC)
                .size(48, 40, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 56).augment(64, true).build();
    }

    private static List<String> batches(Dataset dataset, LoaderOptions options, List<Failure> failures) {
        List<String> seen = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    seen.add(BatchText.of(batch) + " " + Arrays.toString(batch.labels()) + " "
                            + batch.clips().stream().map(ClipInfo::text).toList());
                }
            }
            failures.addAll(loader.pipeline().failures());
        }
        return seen;
    }

    @Test
    void theArchivesGiveTheBatchesOfTheFilesTheyHold() throws IOException {
        Dataset archives = Dataset.open(shards);
        Dataset files = Dataset.open(manifest);
        assertThat(archives.entries()).extracting(e -> e.path().getFileName())
                .containsExactlyElementsOf(files.entries().stream().map(e -> e.path().getFileName()).toList());
        assertThat(archives.classNames()).containsExactly("0", "1");
        List<Failure> failures = new ArrayList<>();
        List<String> fromArchives = batches(archives, options(), failures);
        List<String> fromFiles = batches(files, options(), failures);
        assertThat(failures).isEmpty();
        assertThat(fromArchives).hasSize(6).isEqualTo(fromFiles);
        assertThat(archives.entries()).extracting(VideoEntry::text).as("captions, and none for every third sample")
                .containsExactlyElementsOf(files.entries().stream().map(VideoEntry::text).toList())
                .contains(Optional.empty(), Optional.of("clip 0, \u00e9t\u00e9 \u6f22 \"quoted\""));
        assertThat(String.join("\n", fromArchives)).contains("Optional[clip 2, ").contains("Optional.empty");
        assertThat(archives.entries()).allSatisfy(e -> assertThat(e.path().getParent().getFileName().toString())
                .matches("train-00[01]\\.tar"));
        Path member = archives.get(0).path();
        try (Video inArchive = Video.open(member); Video file = Video.open(files.get(0).path())) {
            assertThat(inArchive.info().path()).isEqualTo(member.toString());
            assertThat(inArchive.info().frameCount()).isEqualTo(file.info().frameCount());
        }
    }

    @Test
    void aChildJvmReadsTheMembersByTheirPaths() throws IOException {
        Dataset archives = Dataset.open(shards);
        List<Failure> failures = new ArrayList<>();
        List<String> inProcess = batches(archives, options(), failures);
        // Every split: tasks, videos and collated batches carry each sample's text across the process boundary.
        for (VideoStage stage : List.of(VideoStage.FETCH, VideoStage.DEMUX, VideoStage.COLLATE)) {
            assertThat(batches(archives, options().toBuilder().splitAfter(stage).build(), failures))
                    .as("fetch in a child JVM, up to %s", stage).isEqualTo(inProcess);
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void resumesExactlyMidEpoch() throws IOException {
        Dataset archives = Dataset.open(shards);
        LoaderOptions options = options();
        ExactResume.assertResumesExactly(() -> VideoLoader.open(archives, options),
                saved -> VideoLoader.open(archives, options, Opening.defaults().resumingFrom(saved)), 1, 4);
    }

    @Test
    void aDamagedMemberAndOneCutShortAreCountedWithTheirPathsAndTheRestLoads() throws Exception {
        Path bad = Files.createDirectories(dir.resolve("bad"));
        Path parts = Files.createDirectories(dir.resolve("bad-parts"));
        Files.copy(dir.resolve("flat").resolve(Dataset.open(manifest).get(0).path().getFileName()),
                parts.resolve("good.mp4"));
        Files.writeString(parts.resolve("noise.mp4"), "no video here\n".repeat(200));
        Files.copy(dir.resolve("flat").resolve(Dataset.open(manifest).get(1).path().getFileName()),
                parts.resolve("last.mp4"));
        Path archive = bad.resolve("b.tar");
        tar(List.of("tar", "-cf", archive.toString(), "-C", parts.toString(), "good.mp4", "noise.mp4", "last.mp4"));
        // Cut inside last.mp4: its header stands, its bytes end early.
        long last = TarIndex.read(archive).members().get(2).offset();
        Files.write(archive, Arrays.copyOf(Files.readAllBytes(archive), (int) last + 1000));
        Dataset dataset = Dataset.open(bad);
        assertThat(dataset.size()).isEqualTo(3);
        assertThat(dataset.classNames()).containsExactly("unlabelled");
        List<Failure> failures = new ArrayList<>();
        LoaderOptions options = options().toBuilder().order(1, false, 1).failureBudget(FailureBudget.parse("0.9"))
                .build();
        List<String> seen = batches(dataset, options, failures);
        assertThat(String.join("\n", seen)).contains("good.mp4").doesNotContain("noise.mp4", "last.mp4");
        assertThat(failures).hasSize(2)
                .anySatisfy(f -> assertThat(f.toString()).contains(archive.resolve("noise.mp4").toString(),
                        "unknown-format"))
                .anySatisfy(f -> assertThat(f.toString()).contains(archive.resolve("last.mp4").toString(), "truncated",
                        "the archive ends 1000 bytes into this member"));
    }
}
