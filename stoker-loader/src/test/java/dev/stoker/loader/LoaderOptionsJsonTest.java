package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options' JSON form: every value survives a round trip, a file names only what it changes, and the
 * pipeline configs that {@code --save-config} wrote before the options had a JSON form still load.
 */
class LoaderOptionsJsonTest {

    /** A property over random options: toJson then fromJson gives equal options, and the same JSON again. */
    @Test
    void randomOptionsSurviveARoundTrip() {
        Random random = new Random(20261124);
        for (int i = 0; i < 2_000; i++) {
            LoaderOptions options = randomOptions(random);
            String json = options.toJson();
            LoaderOptions back = LoaderOptions.fromJson(json);
            assertThat(back).as(json).isEqualTo(options);
            assertThat(back.toJson()).isEqualTo(json);
        }
    }

    @Test
    void theDefaultsSurviveARoundTrip() {
        assertThat(LoaderOptions.fromJson(LoaderOptions.defaults().toJson())).isEqualTo(LoaderOptions.defaults());
        assertThat(LoaderOptions.fromJson("{}")).isEqualTo(LoaderOptions.defaults());
    }

    @Test
    void aFileNamesOnlyWhatItChanges() {
        LoaderOptions o = LoaderOptions.fromJson("""
                {"batch": {"size": 4}, "sampling": {"seed": 9, "rank": 1, "worldSize": 2},
                 "placement": {"splitAfter": "demux"}, "failureBudget": "0.3@100"}""");
        assertThat(o).isEqualTo(LoaderOptions.builder().batch(4, false, BatchLayout.NTHWC).order(9, true, -1).rank(1, 2)
                .splitAfter(VideoStage.DEMUX).failureBudget(FailureBudget.rate(0.3, 100)).build());
    }

    /** What {@code --save-config} wrote before: a bare pipeline config, read as the defaults with that config. */
    @Test
    void anOldFormatPipelineConfigLoads(@TempDir Path dir) throws Exception {
        Path saved = dir.resolve("tuned.json");
        Files.writeString(saved, """
                {
                  "sinkCapacity" : 6,
                  "failureBudget" : { "maxFailures" : 3 },
                  "stages" : {
                    "decode" : { "concurrency" : 3, "queueCapacity" : 21, "order" : "INPUT" },
                    "fetch" : { "concurrency" : 4, "virtualThreads" : true }
                  }
                }""");
        LoaderOptions o = LoaderOptions.read(saved);
        assertThat(o.config()).isEqualTo(PipelineConfig.read(saved));
        assertThat(o.config().stage("decode").concurrency()).isEqualTo(3);
        assertThat(o.config().sinkCapacity()).isEqualTo(6);
        assertThat(o.toBuilder().config(PipelineConfig.EMPTY).build().toJson())
                .as("everything but the config is the defaults").isEqualTo(LoaderOptions.defaults().toBuilder()
                        .config(o.config()).config(PipelineConfig.EMPTY).build().toJson());
        assertThat(LoaderOptions.fromJson(o.toJson())).as("and it saves in the new form").isEqualTo(o);
    }

    @Test
    void badValuesAreNamed(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"batch\": {\"size\": 0}}"))
                .isInstanceOf(InvalidValueException.class).hasMessage("batch.size: 0 (expected: 1+)");
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"placement\": {\"splitAfter\": \"resize\"}}"))
                .isInstanceOf(InvalidValueException.class)
                .hasMessage("placement.splitAfter: \"resize\" (expected: one of fetch, demux, decode, convert, batch, collate)");
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"clip\": {\"frame\": 8}}"))
                .isInstanceOf(InvalidValueException.class).hasMessageStartingWith("clip.frame: not an option (expected: one of frames, strideFrames,");
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"clip\": {\"maxLeadFrames\": -2}}"))
                .isInstanceOf(InvalidValueException.class).hasMessage("clip.maxLeadFrames: -2 (expected: -1+)");
        // Larger than the record's number: named here, not by the JSON reader ("Numeric value out of range of int").
        Map.of("{\"clip\": {\"frames\": 1000000000000}}", "clip.frames: 1000000000000 (expected: an integer of 32 bits)",
                "{\"batch\": {\"size\": 3e9}}", "batch.size: 3.0E9 (expected: an integer of 32 bits)",
                "{\"sampling\": {\"seed\": 18446744073709551616}}",
                "sampling.seed: 18446744073709551616 (expected: an integer of 64 bits)")
                .forEach((json, message) -> assertThatThrownBy(() -> LoaderOptions.fromJson(json))
                        .isInstanceOf(InvalidValueException.class).hasMessage(message));
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"clip\": {\"window\": {\"fromSeconds\": 1, \"toSeconds\": 0.5}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("loader options: clip.window: clip window: 1.0:0.5 (expected: FROM:TO seconds with 0 <= FROM < TO)");
        assertThatThrownBy(() -> LoaderOptions.fromJson(
                "{\"clip\": {\"maxLeadFrames\": 0, \"window\": {\"fromSeconds\": 0, \"toSeconds\": 0.5}}}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("loader options: clip: maxLeadFrames: 0 with clip window"
                        + " 0:0.5 (expected: -1; the window fixes where its clip starts)");
        assertThatThrownBy(() -> LoaderOptions.builder().clipStarts(LoaderOptions.ClipStarts.RANDOM, 4, 1)
                .clipWindow(new ClipWindow(0, 0.5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("clipsPerVideo: 4 with clip window 0:0.5");
        // Segments are one clip a video over all of it: no window, second clip or resampling beside them (a decode budget
        // picks their frames instead).
        assertThat(LoaderOptions.fromJson("{\"clip\": {\"starts\": \"random-segments\", \"maxLeadFrames\": 0}}").clip()
                .startBudget()).as("segments' clip starts where the video does").isEqualTo(-1);
        for (String beside : new String[] {"\"clipsPerVideo\": 2", "\"resampleFps\": 15",
                "\"window\": {\"fromSeconds\": 0, \"toSeconds\": 0.5}"}) {
            assertThatThrownBy(() -> LoaderOptions.fromJson("{\"clip\": {\"starts\": \"random-segments\", " + beside + "}}"))
                    .as(beside).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("loader options: clip: starts: RANDOM_SEGMENTS with ")
                    .hasMessageEndingWith("(expected: no window, 1 clip a video and no resampling; a video's segments are"
                            + " its one clip)");
        }
        assertThatThrownBy(() -> LoaderOptions.builder().clipStarts(LoaderOptions.ClipStarts.UNIFORM, 2, -1).build())
                .isInstanceOf(InvalidValueException.class)
                .hasMessage("windowStepSeconds: -1.0 (expected: 0+; above 0 for window sampling)");
        // A second document after the first, or a key given twice: the later value was dropped, or won, unsaid.
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"sampling\": {\"epochs\": 1}} {\"batch\": {\"size\": 2}}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Trailing token");
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"clip\": {\"frames\": 8, \"frames\": 9}}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Duplicate field 'frames'");
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "[1, 2]");
        assertThatThrownBy(() -> LoaderOptions.read(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + ": loader options: ARRAY (expected: a JSON object)");
    }

    @Test
    void theSpdlWorkloadIsAWindowOfLinspacedFramesStretchedTo112() {
        LoaderOptions o = Workload.of("spdl-example").applyTo(LoaderOptions.builder().batch(16, true, BatchLayout.NCTHW).build());
        assertThat(o.clip().window()).isEqualTo(new ClipWindow(0, 0.5));
        assertThat(o.clip().at(0)).isEqualTo(dev.stoker.loader.clip.ClipSpec.linspace(0, 0.5, 16));
        assertThat(o.size()).isEqualTo(new LoaderOptions.Size(112, 112, Resize.Mode.STRETCH, 0));
        assertThat(o.batch().size()).as("the batch stays the caller's").isEqualTo(16);
        assertThat(LoaderOptions.fromJson(o.toJson())).isEqualTo(o);
        assertThatThrownBy(() -> Workload.of("spdl")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("workload: spdl (expected: one of [spdl-example])");
    }

    @Test
    void aFetchHookTravelsByClassName() {
        LoaderOptions o = LoaderOptions.builder().fetchHook(NoHook.class).build();
        assertThat(o.toJson()).contains(NoHook.class.getName());
        assertThat(LoaderOptions.fromJson(o.toJson()).fetchHook()).isEqualTo(NoHook.class);
    }

    /** A fetch hook that does nothing. */
    public static final class NoHook implements FetchHook {
        @Override
        public void beforeRead(java.nio.file.Path file) {
        }
    }

    @Test
    void splitAfterHasOneMeaning() {
        LoaderOptions afterDecode = LoaderOptions.builder().splitAfter(VideoStage.DECODE).build();
        assertThat(afterDecode.decode().fusedConvert()).as("decoded pictures cannot cross: decode converts").isTrue();
        LoaderOptions fusedAfterConvert = LoaderOptions.builder().fusedConvert(true).splitAfter(VideoStage.CONVERT).build();
        assertThat(fusedAfterConvert.placement().splitAfter()).as("no convert stage: after decode").isEqualTo(VideoStage.DECODE);
        assertThat(fusedAfterConvert).isEqualTo(LoaderOptions.builder().fusedConvert(true).splitAfter(VideoStage.DECODE).build());
    }

    private static LoaderOptions randomOptions(Random r) {
        LoaderOptionsBuilder b = LoaderOptions.builder();
        b = r.nextBoolean() ? b.clip(1 + r.nextInt(32), 1 + r.nextInt(4)) : b.resampledClip(1 + r.nextInt(32), 1 + r.nextInt(60) / 2.0);
        b.pastEnd(PastEndPolicy.values()[r.nextInt(PastEndPolicy.values().length)]);
        LoaderOptions.ClipStarts starts = LoaderOptions.ClipStarts.values()[r.nextInt(3)];
        b.clipStarts(starts, 1 + r.nextInt(5), 0.25 + r.nextInt(8) / 4.0);
        switch (r.nextInt(4)) {
            case 0 -> b.maxLeadFrames(starts == LoaderOptions.ClipStarts.WINDOWS ? -1 : r.nextInt(64));
            case 1 -> b.clip(1 + r.nextInt(32), 1).clipStarts(starts, 1, 0.5)
                    .clipWindow(new ClipWindow(r.nextInt(8) / 4.0, 2 + r.nextInt(8) / 4.0));
            default -> { }
        }
        Resize.Mode[] modes = {Resize.Mode.SHORT_SIDE_CENTER_CROP, Resize.Mode.SHORT_SIDE_RANDOM_CROP, Resize.Mode.STRETCH,
                Resize.Mode.RANDOM_RESIZED_CROP};
        Resize.Mode mode = modes[r.nextInt(modes.length)];
        int width = 16 + r.nextInt(300);
        int height = 16 + r.nextInt(300);
        int shortSide = r.nextBoolean() ? 0 : 16 + r.nextInt(400);
        int side = shortSide > 0 ? shortSide : Math.max(width, height);
        b.size(new LoaderOptions.Size(width, height, mode, shortSide,
                mode.crops() && r.nextBoolean() ? side + r.nextInt(100) : 0, r.nextBoolean(), (1 + r.nextInt(100)) / 100.0,
                mode == Resize.Mode.SHORT_SIDE_CENTER_CROP ? 1 + r.nextInt(LoaderOptions.Size.MAX_SPATIAL_CROPS) : 1));
        b.batch(1 + r.nextInt(64), r.nextBoolean(), r.nextBoolean() ? BatchLayout.NTHWC : BatchLayout.NCTHW)
                .batchBudget(r.nextBoolean() ? 0 : r.nextLong(1, 1L << 40));
        int world = 1 + r.nextInt(8);
        b.order(r.nextLong(), r.nextBoolean(), r.nextBoolean() ? -1 : 1 + r.nextInt(100))
                .sampler(new SamplerOptions(r.nextInt(5), r.nextInt(world), world,
                        r.nextBoolean() ? SamplerOptions.Tail.PAD : SamplerOptions.Tail.DROP));
        b.decoder(1 + r.nextInt(4), r.nextBoolean()).fusedConvert(r.nextBoolean());
        b.splitAfter(r.nextInt(3) == 0 ? null : VideoStage.values()[r.nextInt(VideoStage.values().length)]);
        b.failureBudget(switch (r.nextInt(4)) {
            case 0 -> FailureBudget.count(r.nextInt(10));
            case 1 -> FailureBudget.UNLIMITED;
            case 2 -> new FailureBudget(r.nextInt(10), r.nextInt(101) / 100.0, r.nextInt(1000));
            default -> FailureBudget.rate(r.nextInt(101) / 100.0, r.nextInt(1000));
        });
        if (r.nextBoolean()) {
            b.config(new PipelineConfig(r.nextBoolean() ? null : 1 + r.nextInt(8), null, r.nextBoolean() ? null : (long) r.nextInt(10_000),
                    Map.of("decode", new StageConfig(1 + r.nextInt(4), r.nextBoolean() ? null : 1 + r.nextInt(30), Order.INPUT, null,
                            null, null))));
        }
        return b.build();
    }
}
