package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.video.FailureReason;
import dev.stoker.video.demo.DamagedCopies;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A dataset with broken files trains several epochs with the failure budget raised: each broken file (empty, not a
 * video, an MP4 cut before its index, one whose media data is noise: {@link DamagedCopies} of a demo video) fails once, in its first epoch, and is never fetched again; a transient failure
 * (a read that fails once) is not quarantined. With the quarantine file the next run of the same seed skips them
 * from the start and delivers exactly the clips of a run over the dataset without them; a broken file changed since
 * is tried again.
 */
class QuarantineTest {
    private static final int EPOCHS = 4;
    @TempDir
    static Path dir;
    static List<Path> good;
    static List<Path> broken;

    /** Counts every fetch per file (the fetch stage calls it just before reading). */
    public static final class CountingFetches implements FetchHook {
        static final Map<Path, AtomicInteger> COUNTS = new ConcurrentHashMap<>();
        static volatile Path failOnce;

        @Override
        public void beforeRead(Path file) throws IOException {
            int n = COUNTS.computeIfAbsent(file, f -> new AtomicInteger()).incrementAndGet();
            if (file.equals(failOnce) && n == 1) {
                throw new IOException("a read that fails once (a network mount's hiccup)");
            }
        }
    }

    @BeforeAll
    static void makeDataset() throws IOException {
        Path demo = DemoDataset.create(dir.resolve("demo"), DemoSpec.small(2, 3, 1.0));
        try (Stream<Path> files = Files.walk(demo)) {
            good = files.filter(Files::isRegularFile).filter(p -> p.getParent().getParent().equals(demo)) // ROOT/<class>/<video>
                    .filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
        Path cls = good.getFirst().getParent();
        Path empty = Files.createFile(cls.resolve("empty.mp4"));
        Path text = Files.writeString(cls.resolve("not_a_video.mp4"), "this is a README saved as .mp4\n".repeat(40));
        Path mp4 = good.stream().filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        Path truncated = DamagedCopies.cut(mp4, 0.5, cls.resolve("truncated_moov_missing.mp4"));
        Path garbled = DamagedCopies.garbled(mp4, cls.resolve("garbled_media_data.mp4"));
        // A path longer than the 200 characters a failure report keeps of an item: still quarantined by its file.
        Path deep = Files.createDirectories(dir.resolve("a".repeat(120)).resolve("b".repeat(120)));
        Path longName = Files.writeString(deep.resolve("c".repeat(60) + ".mp4"), "not a video either\n");
        broken = List.of(empty, text, truncated, garbled, longName);
    }

    @BeforeEach
    void resetCounts() {
        CountingFetches.COUNTS.clear();
        CountingFetches.failOnce = null;
    }

    @Test
    void brokenFilesFailOnceAndAreNeverFetchedAgain() throws IOException {
        Path flaky = good.get(2);
        CountingFetches.failOnce = flaky;
        Path file = dir.resolve("once.jsonl");
        Run run = run(manifest("all", concat(good, broken)), file);

        Map<String, Long> failuresPerItem = run.failures.stream()
                .collect(Collectors.groupingBy(Failure::item, Collectors.counting()));
        for (Path b : broken) {
            assertThat(failuresOf(run.failures, b)).as("failures of %s", b).isEqualTo(1L);
            assertThat(CountingFetches.COUNTS.get(b).get()).as("fetches of %s over %d epochs", b, EPOCHS).isEqualTo(1);
        }
        assertThat(run.quarantined).extracting(Quarantine.Entry::path)
                .containsExactlyInAnyOrderElementsOf(broken.stream().map(Path::toString).toList());
        assertThat(run.quarantined).allSatisfy(e -> {
            assertThat(FailureReason.isFileFault(e.reason())).isTrue();
            assertThat(e.sizeBytes()).isEqualTo(Files.size(Path.of(e.path())));
        });
        assertThat(run.quarantined).filteredOn(e -> e.path().endsWith("empty.mp4")).singleElement()
                .satisfies(e -> assertThat(e.reason()).isEqualTo("empty-file"));

        // The transient failure: counted, not quarantined, fetched again in every later epoch.
        assertThat(failuresPerItem.get(flaky.toString())).isEqualTo(1L);
        assertThat(CountingFetches.COUNTS.get(flaky).get()).isEqualTo(EPOCHS);
        assertThat(run.clips.stream().filter(c -> c.startsWith(flaky + "@")).count()).isEqualTo(EPOCHS - 1);
        for (Path g : good) {
            assertThat(CountingFetches.COUNTS.get(g).get()).as("fetches of %s", g).isEqualTo(EPOCHS);
        }
        assertThat(run.failures).hasSize(broken.size() + 1);
        assertThat(Files.readAllLines(file)).hasSize(broken.size());
    }

    @Test
    void aDatasetWhoseEveryFileFailedEndsInAnErrorNotInEndlessEmptyEpochs() throws IOException {
        // Five failures stay under the budget's minimum of 20 items: without the check the endless run spun at
        // full CPU through empty epochs, delivering nothing.
        LoaderOptions endless = options(dir.resolve("all-broken.jsonl"), null).toBuilder()
                .order(11, true, -1).build();
        try (VideoLoader loader = VideoLoader.open(Dataset.open(manifest("all-broken", broken)), endless)) {
            assertTimeoutPreemptively(Duration.ofSeconds(300), () -> assertThatThrownBy(() -> {
                for (ClipBatch batch : loader) {
                    batch.close();
                }
            }).hasStackTraceContaining("every video of the dataset (5) is quarantined: each failed before (listed in"), "a hang, not an error");
            assertThat(loader.quarantine().entries()).hasSize(broken.size());
        }
    }

    @Test
    void theQuarantineFileGivesTheOrderOfTheDatasetWithoutTheBrokenFiles() throws IOException {
        Path file = dir.resolve("next-run.jsonl");
        Path all = manifest("with-broken", concat(good, broken));
        run(all, file); // finds them

        resetCounts();
        Run skipping = run(all, file);
        Run without = run(manifest("without-broken", good), null);
        assertThat(skipping.failures).isEmpty();
        for (Path b : broken) {
            assertThat(CountingFetches.COUNTS.get(b)).as("fetches of %s", b).isNull();
        }
        assertThat(skipping.clips).hasSize(good.size() * EPOCHS).isEqualTo(without.clips);
        assertThat(run(all, file).clips).as("same seed, same quarantine: same order").isEqualTo(skipping.clips);
        assertThat(Files.readAllLines(file)).as("nothing appended by the runs that skipped them").hasSize(broken.size());

        // A broken file replaced since (size and time changed) is tried again, and quarantined again if still broken.
        Path replaced = broken.getFirst();
        Files.writeString(replaced, "still not a video");
        Files.setLastModifiedTime(replaced, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        resetCounts();
        Run again = run(all, file);
        assertThat(CountingFetches.COUNTS.get(replaced).get()).isEqualTo(1);
        assertThat(again.failures).singleElement().satisfies(f -> assertThat(f.item()).isEqualTo(replaced.toString()));
        for (Path b : broken.subList(1, broken.size())) {
            assertThat(CountingFetches.COUNTS.get(b)).as("fetches of %s", b).isNull();
        }
        assertThat(Files.readAllLines(file)).hasSize(broken.size() + 1);
        assertThat(Quarantine.open(file).entries()).hasSize(broken.size());
    }

    /** A run resumed from its state finds the dataset it started on although its quarantine file grew since. */
    @Test
    void aRunResumesAfterItsQuarantineFileGrew() throws IOException {
        Path all = manifest("resume", concat(good, broken));
        List<String> whole = run(all, dir.resolve("resume-whole.jsonl")).clips;
        Path file = dir.resolve("resume.jsonl");
        LoaderOptions options = options(file, null);
        List<String> clips = new ArrayList<>();
        SamplerState state;
        try (VideoLoader loader = VideoLoader.open(Dataset.open(all), options)) {
            Iterator<ClipBatch> batches = loader.iterator();
            for (int b = 0; b < 8; b++) {
                try (ClipBatch batch = batches.next()) {
                    clips.addAll(describe(batch));
                }
            }
            state = loader.state();
        }
        assertThat(Files.readAllLines(file)).as("quarantined while it ran").hasSize(broken.size());
        try (VideoLoader loader = VideoLoader.open(Dataset.open(all), options, Opening.defaults().resumingFrom(state))) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    clips.addAll(describe(batch));
                }
            }
            assertThat(loader.pipeline().failures()).isEmpty();
        }
        assertThat(clips).isEqualTo(whole);
    }

    /** With demux in a child JVM the failures come back with its reports; each file is still counted once. */
    @Test
    void aChildJvmsFailuresQuarantineToo() throws IOException {
        Run run = run(manifest("split", concat(good, broken)), null, VideoStage.DEMUX);
        assertThat(run.failures).hasSize(broken.size());
        for (Path b : broken) {
            assertThat(failuresOf(run.failures, b)).as("failures of %s", b).isEqualTo(1L);
        }
        assertThat(run.quarantined).hasSize(broken.size());
        assertThat(run.clips).hasSize(good.size() * EPOCHS);
    }

    /**
     * Decoding in a child JVM, on a dataset small enough that a file of one epoch and the same file of the next are
     * in flight together: each broken file still fails, and is counted, once (the clips coming back settle a
     * video, as decode does in this process; fetch runs in the child, so its fetches are not counted here).
     */
    @Test
    void aTinyDatasetDecodedInAChildCountsEachFailureOnce() throws IOException {
        for (VideoStage split : new VideoStage[] {VideoStage.DECODE, VideoStage.CONVERT}) {
            List<Path> tiny = List.of(good.get(0), broken.get(1), good.get(1), broken.get(2));
            Run run = run(manifest("tiny-" + split, tiny), null, split);
            assertThat(run.failures).as("failures with %s in a child: %s", split, run.failures).hasSize(2);
            assertThat(run.quarantined).hasSize(2);
            assertThat(run.clips).hasSize(2 * EPOCHS);
        }
    }

    /** Under a decode budget, with several clips a video, and with a clip window, bad files fail and quarantine alike. */
    @Test
    void everyClipSamplingModeCountsQuarantinesAndSkipsTheBrokenFilesAlike() throws IOException {
        Path all = manifest("modes", concat(good, broken));
        LoaderOptions base = options(null, null);
        Map<String, LoaderOptions> modes = Map.of(
                "budget 0", base.toBuilder().maxLeadFrames(0).build(),
                "budget 4, 3 clips a video", base.toBuilder().clipStarts(LoaderOptions.ClipStarts.RANDOM, 3, 1).maxLeadFrames(4).build(),
                "spdl-example", Workload.SPDL_EXAMPLE.applyTo(base).toBuilder().size(32, 32, Resize.Mode.STRETCH, 0).build());
        for (Map.Entry<String, LoaderOptions> mode : modes.entrySet()) {
            List<String> clips = new ArrayList<>();
            try (VideoLoader loader = VideoLoader.open(Dataset.open(all), mode.getValue())) {
                for (ClipBatch batch : loader) {
                    try (batch) {
                        clips.addAll(describe(batch));
                    }
                }
                for (Path b : broken) {
                    assertThat(failuresOf(loader.pipeline().failures(), b)).as("%s: failures of %s", mode.getKey(), b).isEqualTo(1L);
                }
                assertThat(loader.pipeline().failures()).as(mode.getKey()).hasSize(broken.size());
                assertThat(loader.quarantine().entries()).as(mode.getKey()).hasSize(broken.size());
                assertThat(loader.startStats().fallbackClips()).as(mode.getKey()).isZero();
            }
            assertThat(clips).as(mode.getKey()).hasSize(good.size() * EPOCHS * mode.getValue().clip().clipsPerVideo());
        }
    }

    @Test
    void transientReasonsAreNotFileFaults() {
        assertThat(Stream.of("empty-file", "unknown-format", "no-video-stream", "corrupt", "truncated", "unsupported-codec"))
                .allMatch(FailureReason::isFileFault);
        assertThat(Stream.of("io-error", "not-found", "crashed the decoder", "too large for the ring", "internal"))
                .noneMatch(FailureReason::isFileFault);
    }

    private record Run(List<String> clips, List<Failure> failures, List<Quarantine.Entry> quarantined) {
    }

    private static Run run(Path manifest, Path quarantine) throws IOException {
        return run(manifest, quarantine, null);
    }

    private static Run run(Path manifest, Path quarantine, VideoStage splitAfter) throws IOException {
        List<String> clips = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(Dataset.open(manifest), options(quarantine, splitAfter))) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    clips.addAll(describe(batch));
                }
            }
            return new Run(clips, loader.pipeline().failures(), loader.quarantine().entries());
        }
    }

    private static List<String> describe(ClipBatch batch) {
        return batch.clips().stream().map(c -> c.path() + "@" + Arrays.toString(c.frameTimestampsSeconds())).toList();
    }

    private static LoaderOptions options(Path quarantine, VideoStage splitAfter) {
        return LoaderOptions.builder()
                .splitAfter(splitAfter)
                .clip(4, 2)
                .size(32, 32, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC)
                .order(11, true, EPOCHS)
                .failureBudget(FailureBudget.rate(0.6, 20))
                .fetchHook(CountingFetches.class)
                .quarantine(quarantine)
                .build();
    }

    /** Failures of {@code file}: its path, or the start of it a failure report keeps of a long one. */
    private static long failuresOf(List<Failure> failures, Path file) {
        String path = file.toString();
        return failures.stream().map(Failure::item)
                .filter(i -> i.equals(path) || i.endsWith("...") && path.startsWith(i.substring(0, i.length() - 3)))
                .count();
    }

    private static Path manifest(String name, List<Path> files) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path f : files) {
            Path cls = f.getParent().getParent().equals(good.getFirst().getParent().getParent()) ? f.getParent()
                    : good.getFirst().getParent(); // outside the class folders (the long path): the first class
            lines.add(f + "," + cls.getFileName());
        }
        return Files.write(dir.resolve(name + ".csv"), lines);
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
