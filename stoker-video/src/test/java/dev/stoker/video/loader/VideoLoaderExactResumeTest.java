package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * A loader resumed from {@link VideoLoader#state()} delivers exactly what the uninterrupted one would
 * have: the same videos, clip times and random crops, in the same batches.
 */
@Timeout(120)
class VideoLoaderExactResumeTest {
    @TempDir
    static Path dir;
    static Path demo;
    static Dataset dataset;

    @BeforeAll
    static void makeDataset() throws IOException {
        demo = DemoDataset.create(dir.resolve("demo"), DemoSpec.small(2, 3, 2.0));
        dataset = Dataset.open(demo);
    }

    private static void assertResumesExactly(LoaderOptions options, int... cuts) {
        ExactResume.assertResumesExactly(() -> VideoLoader.open(dataset, options),
                saved -> VideoLoader.open(dataset, options, Opening.defaults().resumingFrom(saved)), cuts);
    }

    @Test
    void resumingAfterAnyBatchContinuesTheUninterruptedSequenceWithTheSameClipsAndCrops() {
        // 6 videos, batches of 2: 3 batches an epoch, 2 epochs. Cut mid-epoch, at the epoch boundary, inside epoch 1.
        assertResumesExactly(ResumeChild.options(), 1, 3, 4);
    }

    @Test
    void resumingWithScaleJitterAndFlipsFramesEveryClipAsTheUninterruptedRunDid() {
        // The framing is drawn from each clip's seed, not from a stream a resume would have to replay.
        assertResumesExactly(ResumeChild.options().toBuilder().augment(128, true).build(), 1, 4);
    }

    @Test
    void resumingBetweenAClipsSpatialCropsDeliversOnlyTheCropsStillDue() {
        // 3 crops of 1 clip a video, batches of 2: batch 1 ends after the second crop of the first video's clip, and
        // batch 2 after the first crop of the second video's.
        LoaderOptions options = ResumeChild.options().toBuilder().order(9, true, 1)
                .size(64, 64, Resize.Mode.SHORT_SIDE_CENTER_CROP, 96).spatialCrops(3).build();
        ExactResume.Run one = ExactResume.run(VideoLoader.open(dataset, options), 1);
        assertThat(one.state().clipsDelivered()).isEqualTo(2);
        assertResumesExactly(options, 1, 2, 5);
    }

    @Test
    void resumingInsideAVideosClipsSkipsOnlyTheClipsAlreadyDelivered() {
        // 2 clips a video, batches of 3: batch 1 ends after the first clip of the second video.
        LoaderOptions options = ResumeChild.options().toBuilder().order(9, true, 1).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1.0).build();
        ExactResume.Run one = ExactResume.run(VideoLoader.open(dataset, options), 1);
        assertThat(one.state().clipsDelivered()).isEqualTo(1);
        assertThat(one.state().position()).isEqualTo(1);
        assertResumesExactly(options, 1, 2);
    }

    @Test
    void resumingInEveryClipSamplingModeContinuesExactly() {
        // A decode budget; 4 clips a video under one (batch 1 ends inside the first video's clips); SPDL's example's
        // clip window (random crops kept, so that its fixed clips still differ from epoch to epoch); random segments
        // (their frames drawn from each clip's seed).
        assertResumesExactly(ResumeChild.options().toBuilder().maxLeadFrames(8).build(), 1, 4);
        assertResumesExactly(ResumeChild.options().toBuilder().order(9, true, 1).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 4, 1.0).maxLeadFrames(0).build(), 1, 5);
        assertResumesExactly(ResumeChild.options().toBuilder().clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0)
                .build(), 1, 4);
        assertResumesExactly(ResumeChild.options().toBuilder().clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0)
                .maxLeadFrames(2).build(), 1, 4);
        assertResumesExactly(Workload.SPDL_EXAMPLE.applyTo(ResumeChild.options()).toBuilder()
                .size(64, 64, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 96).build(), 1, 4);
    }

    @Test
    void stateBeforeTheFirstBatchIsTheStartAndAtTheEndIsTheNextEpoch() {
        LoaderOptions options = ResumeChild.options().toBuilder().order(5, true, 1).build();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            assertThat(loader.state().epoch()).isZero();
            assertThat(loader.state().position()).isZero();
            for (ClipBatch batch : loader) {
                batch.close();
            }
            assertThat(loader.state().epoch()).isEqualTo(1);
            assertThat(loader.state().position()).isZero();
        }
    }

    @Test
    void ranksLoadDisjointEqualPartsOfEveryEpoch() {
        List<Set<Path>> parts = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            LoaderOptions options = ResumeChild.options().toBuilder().order(5, true, 1).rank(rank, 2).build();
            try (VideoLoader loader = VideoLoader.open(dataset, options)) {
                parts.add(new HashSet<>(DeliveredClips.sources(loader)));
                assertThat(loader.state().rank()).isEqualTo(rank);
            }
        }
        assertThat(parts.get(0)).hasSize(3).doesNotContainAnyElementsOf(parts.get(1));
        assertThat(parts.get(1)).hasSize(3);
    }

    @Test
    void resumingWithOtherSettingsOrAnotherDatasetIsRefused() throws IOException {
        SamplerState state;
        try (VideoLoader loader = VideoLoader.open(dataset, ResumeChild.options())) {
            state = loader.state();
        }
        assertThatThrownBy(() -> VideoLoader.open(dataset, ResumeChild.options().toBuilder().order(6, true, 2).build(), Opening.defaults().resumingFrom(state)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed 6 (state: 5)");
        Dataset smaller = new Dataset(dataset.entries().subList(0, 5), dataset.classNames());
        assertThatThrownBy(() -> VideoLoader.open(smaller, ResumeChild.options(), Opening.defaults().resumingFrom(state)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataset fingerprint: 5 samples in 5 groups");
    }

    @Test
    void aKilledTrainingProcessResumesFromItsLastSavedStateExactly() throws Exception {
        List<String> whole = ExactResume.run(VideoLoader.open(dataset, ResumeChild.options()), Integer.MAX_VALUE).batches();
        assertThat(whole).hasSize(6);

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xss1m",
                "-cp", System.getProperty("java.class.path"), ResumeChild.class.getName(), demo.toString(), "150")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> trained = new ArrayList<>();
        SamplerState saved = null;
        String pendingBatch = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("BATCH ")) {
                    pendingBatch = line.substring(6);
                } else if (line.startsWith("STATE ")) {
                    // A checkpoint: the batch is trained on and the state saved together.
                    trained.add(pendingBatch);
                    saved = SamplerState.fromJson(line.substring(6));
                    if (trained.size() == 4) {
                        child.destroyForcibly(); // mid-epoch 1; whatever it printed since is lost with it
                        break;
                    }
                }
            }
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(trained).hasSize(4);
        assertThat(saved.epoch()).isEqualTo(1);
        assertThat(saved.position()).isEqualTo(2);

        List<String> joined = new ArrayList<>(trained);
        joined.addAll(ExactResume.run(VideoLoader.open(dataset, ResumeChild.options(), Opening.defaults().resumingFrom(saved)), Integer.MAX_VALUE).batches());
        assertThat(joined).isEqualTo(whole);
    }
}
