package dev.stoker.video.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.FailureReason;
import dev.stoker.video.internal.ProbeResult;
import dev.stoker.video.demo.DamagedCopies;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.Quarantine;
import dev.stoker.video.scan.internal.DatasetScan;
import dev.stoker.video.scan.internal.ScanReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stoker scan}'s library part over the real sample videos: it finds exactly the files of
 * {@code ../shared/videos/damaged} (a missing index, a file cut in half, damaged NAL units, fuzzed Matroska and VP9
 * headers) and none of the 23 real ones, each with a file-fault reason; files made broken here (empty, text) get
 * the reasons the loader gives them, and so do copies of a demo video cut before its index or with its media data
 * garbled; the quarantine file it writes is one the loader reads. Only the first test needs the samples.
 */
class DatasetScanTest {
    @TempDir
    static Path dir;
    static List<Path> healthy;
    static List<Path> damaged;

    /** The shared sample videos (third-party files), or the calling test skips. */
    static void findSamples() throws IOException {
        if (healthy != null) {
            return;
        }
        String shared = System.getProperty("stoker.shared.videos");
        assumeTrue(shared != null, "system property stoker.shared.videos is not set (surefire sets it)");
        Path root = Path.of(shared);
        assumeTrue(Files.isDirectory(root.resolve("damaged")), "shared sample videos not found at " + root.toAbsolutePath());
        try (Stream<Path> files = Files.list(root)) {
            healthy = files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".txt"))
                    .sorted().toList();
        }
        try (Stream<Path> files = Files.list(root.resolve("damaged"))) {
            damaged = files.filter(Files::isRegularFile).sorted().toList();
        }
        assumeTrue(!healthy.isEmpty() && !damaged.isEmpty(), "no sample videos under " + root);
    }

    @Test
    void findsExactlyTheDamagedSampleVideos() throws IOException, InterruptedException {
        findSamples();
        List<Path> all = new ArrayList<>(healthy);
        all.addAll(damaged);
        ConcurrentLinkedQueue<ProbeResult> seen = new ConcurrentLinkedQueue<>();
        ScanReport report = DatasetScan.of(dataset(all)).workers(2).onEachFile(seen::add).run();

        assertThat(report.results()).hasSize(all.size());
        assertThat(seen).hasSize(all.size());
        assertThat(report.failed()).extracting(ProbeResult::path)
                .containsExactlyInAnyOrderElementsOf(damaged.stream().map(Path::toString).toList());
        assertThat(report.failed()).allSatisfy(r -> {
            assertThat(r.reason().fileFault()).as(r.path()).isTrue();
            assertThat(r.detail()).as(r.path()).isNotBlank().doesNotContain(r.path());
        });
        assertThat(report.results()).filteredOn(ProbeResult::ok).allSatisfy(r -> {
            assertThat(r.frameCount()).as(r.path()).isPositive();
            assertThat(r.firstGopFrames()).as(r.path()).isPositive();
            assertThat(r.durationSeconds()).as(r.path()).isPositive();
        });
        // The frame count comes from the index: what the ffmpeg CLI decodes (MANIFEST.txt), for every single-stream file.
        Map<String, Integer> decodedFrames = manifestFrames();
        assertThat(report.results()).filteredOn(ProbeResult::ok)
                .filteredOn(r -> decodedFrames.containsKey(Path.of(r.path()).getFileName().toString()))
                .hasSizeGreaterThan(healthy.size() / 2)
                .allSatisfy(r -> assertThat(r.frameCount()).as(r.path())
                        .isEqualTo(decodedFrames.get(Path.of(r.path()).getFileName().toString())));
        Map<FailureReason, List<ProbeResult>> by = report.failuresByReason();
        assertThat(by.get(FailureReason.TRUNCATED)).extracting(ProbeResult::path).containsExactlyInAnyOrder(
                damaged("DERIVED_flower_truncated_at_50pct_moov_front.mp4"),
                damaged("DERIVED_mmaction2_test_truncated_moov_missing.mp4"));
        assertThat(report.results().stream().filter(r -> r.path().equals(damaged("decord_corrupted.mp4"))))
                .singleElement().satisfies(r -> {
                    assertThat(r.reason()).isEqualTo(FailureReason.CORRUPT);
                    assertThat(r.operation()).isEqualTo("decode");
                });
        String table = report.toTable(null);
        for (Path d : damaged) {
            assertThat(table).containsOnlyOnce(d.toString());
        }
        assertThat(table).startsWith("scanned " + all.size() + " videos").contains("truncated", "corrupt");
    }

    @Test
    void brokenFilesGetTheLoadersReasonsAndOnlyFileFaultsAreQuarantined() throws IOException, InterruptedException {
        Path empty = Files.createFile(dir.resolve("empty.mp4"));
        Path text = Files.writeString(dir.resolve("notes.mp4"), "not a video\n".repeat(50));
        Path missing = dir.resolve("gone.mp4");
        Path good = demoVideo();
        ScanReport report = DatasetScan.of(dataset(List.of(good, empty, text, missing, empty))).workers(3).run();

        assertThat(report.results()).as("each file once").extracting(ProbeResult::path)
                .containsExactly(good.toString(), empty.toString(), text.toString(), missing.toString());
        assertThat(report.results()).extracting(ProbeResult::reason)
                .containsExactly(null, FailureReason.EMPTY_FILE, FailureReason.UNKNOWN_FORMAT, FailureReason.NOT_FOUND);

        Path file = dir.resolve("bad.jsonl");
        assertThat(report.quarantineInto(Quarantine.open(file))).isEqualTo(2);
        assertThat(report.quarantineInto(Quarantine.open(file))).as("already there").isZero();
        assertThat(Quarantine.open(file).entries()).extracting(Quarantine.Entry::path, Quarantine.Entry::reason,
                Quarantine.Entry::stage).containsExactly(
                org.assertj.core.groups.Tuple.tuple(empty.toString(), "empty-file", ScanReport.STAGE),
                org.assertj.core.groups.Tuple.tuple(text.toString(), "unknown-format", ScanReport.STAGE));
        assertThat(Quarantine.open(file).without(dataset(List.of(good, empty, text, missing))).entries())
                .extracting(VideoEntry::path).containsExactly(good, missing);
    }

    @Test
    void damagedCopiesOfAGoodVideoGetTheReasonsOfTheirDamage() throws IOException, InterruptedException {
        Path cut = DamagedCopies.cut(demoVideo(), 0.5, dir.resolve("cut.mp4"));
        Path garbled = DamagedCopies.garbled(demoVideo(), dir.resolve("garbled.mp4"));
        ScanReport report = DatasetScan.of(dataset(List.of(demoVideo(), cut, garbled))).workers(2).run();

        assertThat(report.results()).extracting(ProbeResult::reason)
                .containsExactly(null, FailureReason.TRUNCATED, FailureReason.CORRUPT);
        assertThat(report.results().get(2).operation()).isEqualTo("decode");
    }

    /** An H.264 MP4 of the demo generator. */
    private static Path demoVideo() throws IOException {
        try (Stream<Path> files = Files.walk(DemoFolders.of(DemoSpec.small(1, 1, 2.0)))) {
            return files.filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        }
    }

    /** MANIFEST.txt's decoded frames per healthy file, multi-stream files left out (which stream is "the" video differs). */
    private static Map<String, Integer> manifestFrames() {
        Map<String, Integer> frames = new java.util.HashMap<>();
        try {
            for (String line : Files.readAllLines(healthy.getFirst().getParent().resolve("MANIFEST.txt"))) {
                String[] c = line.split("\\|");
                if (line.startsWith("#") || c.length < 15 || line.startsWith("damaged/") || c[14].contains("multi-stream")) {
                    continue;
                }
                frames.put(c[0].strip(), Integer.parseInt(c[12].strip()));
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("MANIFEST.txt of the sample videos: " + e, e);
        }
        return frames;
    }

    private static String damaged(String name) {
        return damaged.stream().filter(p -> p.getFileName().toString().equals(name)).findFirst().orElseThrow().toString();
    }

    private static Dataset dataset(List<Path> files) {
        return new Dataset(files.stream().map(f -> new VideoEntry(f, 0, "all")).toList(), List.of("all"));
    }
}
