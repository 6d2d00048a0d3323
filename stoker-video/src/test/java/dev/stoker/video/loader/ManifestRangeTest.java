package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A manifest's {@code start,end} range is where an entry's clips come from, its frames and no other: a range past the
 * video's end fails its sample as {@code out-of-range} (as ingest refuses it), one crossing the video's end is cut
 * there, and one shorter than the clip gets the past-end policy at the range's ends, never frames from either side
 * (those show a neighbouring action under this entry's label). The video: 3.1 s at 30 fps, frames at k / 30 s.
 */
class ManifestRangeTest {
    private static final double FRAME = 1 / 30.0;
    private static final double EPSILON = 1e-6;
    @TempDir
    static Path dir;
    static Path video;

    @BeforeAll
    static void findVideo() throws IOException {
        try (Stream<Path> files = Files.walk(DemoFolders.of(DemoSpec.small(1, 1, 3.1)))) {
            video = files.filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        }
    }

    /** One copy of the video a range, so that each clip's path says which range it came from. */
    private static Dataset manifest(String name, Map<String, String> ranges) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, String> range : ranges.entrySet()) {
            Path copy = dir.resolve(name + "-" + range.getKey() + ".mp4");
            if (!Files.exists(copy)) {
                Files.copy(video, copy);
            }
            lines.add(copy + ",walking," + range.getValue());
        }
        return Dataset.open(Files.write(dir.resolve(name + ".csv"), lines));
    }

    /** 8 frames 2 apart: a clip spans 15 frames, 0.5 s. */
    private static LoaderOptions options(PastEndPolicy pastEnd) {
        return LoaderOptions.builder().clip(8, 2).pastEnd(pastEnd).clipStarts(LoaderOptions.ClipStarts.RANDOM, 3, 1.0)
                .size(32, 32, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0).batch(4, false, BatchLayout.NTHWC)
                .order(11, true, 2).failureBudget(FailureBudget.count(100)).build();
    }

    private record Run(Map<String, List<ClipInfo>> clips, List<Failure> failures) {
    }

    private static Run load(Dataset dataset, LoaderOptions options) {
        Map<String, List<ClipInfo>> clips = new HashMap<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    for (ClipInfo c : batch.clips()) {
                        String name = c.path().getFileName().toString();
                        clips.computeIfAbsent(name.substring(name.indexOf('-') + 1, name.length() - 4),
                                k -> new ArrayList<>()).add(c);
                    }
                }
            }
            return new Run(clips, loader.pipeline().failures());
        }
    }

    private static void assertWithin(List<ClipInfo> clips, double from, double to) {
        assertThat(clips).isNotEmpty().allSatisfy(c -> assertThat(c.frameTimestampsSeconds()).as("%s", c)
                .hasSize(8).satisfies(times -> {
                    for (double t : times) {
                        assertThat(t).isBetween(from - EPSILON, to - EPSILON);
                    }
                }));
    }

    @ParameterizedTest(name = "past-end policy {0}")
    @EnumSource(value = PastEndPolicy.class, names = {"SHIFT", "REPEAT_LAST"})
    void everyFrameOfARangedEntrysClipsLiesInItsRange(PastEndPolicy pastEnd) throws IOException {
        Map<String, String> ranges = new LinkedHashMap<>();
        ranges.put("inside", "1.0,2.0");
        ranges.put("crossing", "2.5,5.0");      // cut at the video's end, 3.1 s: 18 frames, longer than a clip
        ranges.put("short", "0.9,1.1");         // 6 frames: QA saw frames from 0.6 s, before the range
        ranges.put("tiny", "0,0.05");           // 2 frames: QA saw frames up to 0.094 s, past the range
        ranges.put("shortAtEnd", "3.0,5.0");    // crosses the video's end and is shorter than a clip: 3 frames
        Run run = load(manifest(pastEnd.name(), ranges), options(pastEnd));
        assertThat(run.failures()).isEmpty();
        assertThat(run.clips()).containsOnlyKeys(ranges.keySet()).allSatisfy((name, clips) ->
                assertThat(clips).as(name).hasSize(6));
        assertWithin(run.clips().get("inside"), 1.0, 2.0);
        assertWithin(run.clips().get("crossing"), 2.5, 3.1);
        assertWithin(run.clips().get("short"), 0.9, 1.1);
        assertWithin(run.clips().get("tiny"), 0, 0.05);
        assertWithin(run.clips().get("shortAtEnd"), 3.0, 3.1);
        // A range shorter than the clip starts on its first frame and repeats its last, under either policy.
        assertThat(run.clips().get("short")).allSatisfy(c ->
                assertThat(frames(c)).containsExactly(27, 29, 31, 32, 32, 32, 32, 32));
        assertThat(run.clips().get("tiny")).allSatisfy(c ->
                assertThat(frames(c)).containsExactly(0, 1, 1, 1, 1, 1, 1, 1));
        assertThat(run.clips().get("shortAtEnd")).allSatisfy(c ->
                assertThat(frames(c)).containsExactly(90, 92, 92, 92, 92, 92, 92, 92));
        // A long enough range's clips keep their stride (nothing repeated), SHIFT or not.
        assertThat(run.clips().get("inside")).allSatisfy(c -> assertThat(strides(c)).containsOnly(2));
    }

    @Test
    void aRangeThatDoesNotFitTheClipFailsUnderSkip() throws IOException {
        Map<String, String> ranges = new LinkedHashMap<>();
        ranges.put("inside", "1.0,2.0");
        ranges.put("short", "0.9,1.1");
        Run run = load(manifest("skip", ranges), options(PastEndPolicy.SKIP));
        assertWithin(run.clips().get("inside"), 1.0, 2.0);
        assertThat(run.clips()).doesNotContainKey("short");
        assertThat(run.failures()).isNotEmpty().allSatisfy(f -> {
            assertThat(f.reason()).isEqualTo("out-of-range");
            assertThat(f.item()).contains("skip-short.mp4");
        });
    }

    @Test
    void aRangePastTheVideosEndIsACountedOutOfRangeFailureNamingPathAndRange() throws IOException {
        Map<String, String> ranges = new LinkedHashMap<>();
        ranges.put("inside", "1.0,2.0");
        ranges.put("past", "50,60");    // QA saw clips of frames at 2.87-2.97 s, nothing counted
        Dataset dataset = manifest("past", ranges);
        Run run = load(dataset, options(PastEndPolicy.SHIFT));
        assertThat(run.clips()).containsOnlyKeys("inside");
        Path past = dir.resolve("past-past.mp4");
        assertThat(run.failures()).as("one failure of the sample, not one a clip or an epoch's worth unseen")
                .hasSize(2).allSatisfy(f -> {   // 2 epochs
                    assertThat(f.stage()).isEqualTo("demux");
                    assertThat(f.reason()).isEqualTo("out-of-range");
                    assertThat(f.item()).contains(past.toString());
                    assertThat(f.cause().getMessage()).contains(past.toString()).contains("[50.0, 60.0) s")
                            .contains("93 frames");
                });
        // Counted against the failure budget: none allowed stops the loader.
        LoaderOptions noFailures = options(PastEndPolicy.SHIFT).toBuilder().failureBudget(FailureBudget.count(0)).build();
        assertThatThrownBy(() -> load(dataset, noFailures)).hasStackTraceContaining("out-of-range");
    }

    /** The clip's frames, numbered as in the video (frame k shown at k / 30 s). */
    private static List<Integer> frames(ClipInfo c) {
        List<Integer> frames = new ArrayList<>();
        for (double t : c.frameTimestampsSeconds()) {
            frames.add((int) Math.round(t / FRAME));
        }
        return frames;
    }

    private static List<Integer> strides(ClipInfo c) {
        List<Integer> frames = frames(c);
        List<Integer> strides = new ArrayList<>();
        for (int k = 1; k < frames.size(); k++) {
            strides.add(frames.get(k) - frames.get(k - 1));
        }
        return strides;
    }
}
