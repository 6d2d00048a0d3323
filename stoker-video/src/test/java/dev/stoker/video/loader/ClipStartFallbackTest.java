package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A dataset in which no video has a clip start within the decode budget still trains (each clip starts at its
 * video's cheapest start, not an empty epoch), counts those clips, and says so with the first batch, before the
 * consumer gets it. The demo videos have one keyframe, at frame 0; entries starting at 0.5 s leave none in range.
 */
class ClipStartFallbackTest {
    /** The logger the loaders' clip-start counter (package-private in stoker-loader) warns on. */
    private static final String CLIP_START_LOGGER = "dev.stoker.loader.ClipStartCounter";
    @TempDir
    static Path dir;
    static List<Path> videos;
    private final List<LogRecord> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logged) {
                logged.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeAll
    static void makeDataset() throws IOException {
        Path demo = DemoDataset.create(dir.resolve("demo"), DemoSpec.small(1, 3, 2.0));
        try (Stream<Path> files = Files.walk(demo)) {
            videos = files.filter(p -> p.toString().endsWith(".mp4") || p.toString().endsWith(".webm")).sorted().toList();
        }
    }

    @BeforeEach
    void listen() {
        Logger.getLogger(CLIP_START_LOGGER).addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger(CLIP_START_LOGGER).removeHandler(capture);
    }

    private static Dataset manifest(String name, String range) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path v : videos) {
            lines.add(v + "," + v.getParent().getFileName() + range);
        }
        return Dataset.open(Files.write(dir.resolve(name + ".csv"), lines));
    }

    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(32, 32, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC).order(3, true, 2).maxLeadFrames(0).build();
    }

    private List<String> warnings() {
        synchronized (logged) {
            return logged.stream().map(LogRecord::getMessage).toList();
        }
    }

    @Test
    void noEligibleStartAnywhereFallsBackCountsAndSaysSoWithTheFirstBatch() throws IOException {
        List<ClipInfo> clips = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(manifest("late", ",0.5,2.0"), options())) {
            Iterator<ClipBatch> batches = loader.iterator();
            try (ClipBatch first = batches.next()) {
                assertThat(warnings()).as("said before the first batch is handed over").singleElement().asString()
                        .startsWith("maxLeadFrames 0: no clip of the first batch starts within 0 frames of a keyframe")
                        .contains("15.0 frames of lead on average");
                clips.addAll(first.clips());
            }
            while (batches.hasNext()) {
                try (ClipBatch batch = batches.next()) {
                    clips.addAll(batch.clips());
                }
            }
            assertThat(clips).hasSize(videos.size() * 2);
            // The cheapest start in [0.5 s, ...]: its first frame, 15 frames after the keyframe at 0.
            assertThat(clips).allSatisfy(c -> {
                assertThat(c.leadFrames()).isEqualTo(15);
                assertThat(c.frameTimestampsSeconds()[0]).isEqualTo(0.5);
            });
            assertThat(loader.startStats().fallbackClips()).isEqualTo(clips.size());
            assertThat(loader.startStats().meanLeadFrames()).isEqualTo(15.0);
        }
        assertThat(warnings()).as("once").hasSize(1);
    }

    @Test
    void aBudgetTheVideosMeetSaysNothing() throws IOException {
        try (VideoLoader loader = VideoLoader.open(manifest("whole", ""), options())) {
            for (ClipBatch batch : loader) {
                batch.close();
            }
            assertThat(loader.startStats().fallbackClips()).isZero();
            assertThat(loader.startStats().clips()).isEqualTo(videos.size() * 2L);
        }
        assertThat(warnings()).isEmpty();
    }
}
