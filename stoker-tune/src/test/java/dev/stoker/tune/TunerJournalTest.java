package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.internal.Ceiling;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.SideBySide;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialPhase;
import dev.stoker.tune.internal.TrialSpec;
import dev.stoker.tune.internal.TrialStatus;
import dev.stoker.tune.internal.TuneReport;
import dev.stoker.tune.internal.TunerJournal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tuner's files: experiments.jsonl, best.json, the report, and a search that continues where it stopped. */
class TunerJournalTest {
    private static final String A = "config.stages.a.concurrency";
    private static final SearchSpace SPACE = SearchSpace.of(Knob.linear(A, 1, 8), Knob.log("config.sinkCapacity", 1, 16));

    /** Instant trials: throughput peaks at a=5; a=7 crashes, a=8 hangs. */
    private static TrialMetrics fake(TrialSpec t) throws Exception {
        PipelineConfig config = t.options().config();
        int a = config.stage("a").concurrency();
        if (a == 7) {
            throw new IllegalStateException("boom at 7");
        }
        if (a == 8) {
            throw new TimeoutException("ran past 1 s and was killed");
        }
        double sps = 100 * Math.min(a, 5) - (a > 5 ? 40 * (a - 5) : 0) + (t.trial() % 2);
        PipelineConfig effective = new PipelineConfig(config.sinkCapacity() == null ? 2 : config.sinkCapacity(), null, null,
                Map.of("a", config.stage("a").withQueueCapacity(4)));
        return new TrialMetrics(sps, "a", "saturated", "bottleneck: a (saturated)", 0.5, 0.1,
                List.of(new TrialMetrics.Stage("source", 1, 0, 0, 1, 0, 0, 0, 0, 0),
                        new TrialMetrics.Stage("a", a, 0.95, 0.05, 0, 10.0 / Math.min(a, 5) * a, 10, 4, 0.9, 0)),
                0.2, null, effective);
    }

    @Test
    void aStartThatNeverRunsEndsTheSearchRecommendingNothing(@TempDir Path dir) throws Exception {
        // Its point holds each unset knob's minimum: searching from it ran (and recommended) configs never measured.
        LoaderOptions start = LoaderOptions.defaults().with(A, 3);
        TuneResult result = Tuner.of(SPACE, t -> {
            throw new IllegalStateException("no such dataset");
        }).startFrom(start).maxTrials(20).repeats(3).journal(dir).run();
        assertThat(result.best().ok()).isFalse();
        assertThat(result.stopReason()).startsWith("the start config never ran (3 tries; failed: no such dataset");
        assertThat(result.experiments()).hasSize(3).allSatisfy(e -> {
            assertThat(e.phase()).isEqualTo(TrialPhase.START);
            assertThat(e.options().path("config").path("stages").path("a").path("concurrency").asInt()).isEqualTo(3);
        });
        assertThat(dir.resolve("best.json")).doesNotExist();
    }

    @Test
    void aStartTrialThatFailsIsRunAgainAndTheSearchGoesOnFromItsEffectiveConfig(@TempDir Path dir) throws Exception {
        // Twice: a trial's run that fails is run once more within the trial.
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        LoaderOptions start = LoaderOptions.defaults().with(A, 3);
        TuneResult result = Tuner.of(SPACE, t -> {
            if (runs.incrementAndGet() <= 2) {
                throw new IllegalStateException("a run that died for reasons of its own");
            }
            return fake(t);
        }).startFrom(start).maxTrials(8).repeats(2).journal(dir).run();
        List<Experiment> all = result.experiments();
        assertThat(all.get(0).ok()).isFalse();
        assertThat(all.get(1).phase()).isEqualTo(TrialPhase.START);
        assertThat(all.get(1).ok()).isTrue();
        assertThat(all).filteredOn(e -> e.phase() == TrialPhase.REPEAT).as("the failed start is no sample of the noise")
                .hasSize(1).allSatisfy(e -> assertThat(e.point()).isEqualTo(all.get(1).point()));
        assertThat(result.best().ok()).isTrue();
        assertThat(dir.resolve("best.json")).exists();
    }

    @Test
    void writesEveryTrialAndContinuesWhereItStopped(@TempDir Path dir) throws Exception {
        LoaderOptions start = LoaderOptions.defaults().with(A, 1);
        TuneResult first = Tuner.of(SPACE, TunerJournalTest::fake).startFrom(start).maxTrials(5).journal(dir).run();
        assertThat(first.experiments()).hasSize(5);
        assertThat(Files.readAllLines(dir.resolve("experiments.jsonl"))).hasSize(5);

        TuneResult second = Tuner.of(SPACE, TunerJournalTest::fake).startFrom(start).maxTrials(14).patience(20)
                .journal(dir).run();
        List<Experiment> all = Tuner.readJournal(dir);
        assertThat(all).hasSize(second.experiments().size());
        assertThat(all).extracting(Experiment::trial).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, all.size()).boxed().toList());
        Set<Map<String, Integer>> points = new HashSet<>();
        Set<Map<String, Integer>> secondLooks = new HashSet<>();
        for (Experiment e : all) {
            assertThat(e.parent()).isLessThan(e.trial());
            assertThat(e.hypothesis()).isNotBlank();
            if (e.phase().isCandidate() || e.phase() == TrialPhase.START) {
                // A candidate runs again only as a second look (once: a stalled run must not close a direction).
                boolean again = e.phase() == TrialPhase.SECOND_LOOK;
                assertThat(again ? secondLooks.add(e.point()) && points.contains(e.point()) : points.add(e.point()))
                        .as("point tried twice: %s", e.point()).isTrue();
            }
        }
        assertThat(second.best().point()).containsEntry(A, 5);
        assertThat(all.getFirst().point()).containsEntry(A, 1);
        assertThat(LoaderOptions.read(dir.resolve("best.json"))).as("best.json is what --config reads")
                .isEqualTo(second.bestOptions());
        assertThat(second.bestOptions().config().stage("a").concurrency()).isEqualTo(5);
        assertThat(all.getLast().options().path("config").path("stages").path("a").has("concurrency"))
                .as("each trial records the document it ran").isTrue();
        assertThat(all).anySatisfy(e -> assertThat(e.status()).isEqualTo(TrialStatus.FAILED));
        assertThat(all).filteredOn(e -> !e.ok()).allSatisfy(e -> assertThat(e.kept()).isFalse());

        SideBySide compared = new SideBySide(List.of(new SideBySide.Entry("start", List.of(100.0, 110.0)),
                new SideBySide.Entry("default", List.of(200.0, Double.NaN)), new SideBySide.Entry("best", List.of(500.0, 440.0))));
        String html = TuneReport.html(second, List.of(new Ceiling("headspace ceiling", 600.0, "a 120 ms step"),
                new Ceiling("decode ceiling", 800.0, "2 threads at once")), compared, "/* chart.js </script> */");
        assertThat(html).contains("<svg", "new Chart(", "Headspace ceiling: 600 samples/s (a 120 ms step)",
                        "Decode ceiling: 800 samples/s (2 threads at once); the start config runs at", "\"name\":\"decode ceiling\"",
                        "Kept improvements", "a.concurrency 1→2",
                        "Side by side", "4.47x (rounds: 4.00 to 5.00, 2)", "2.50x (rounds: 2.50 to 2.50, 1)")
                .doesNotContain("chart.js </script>");
    }

    @Test
    void aSearchContinuedFromOtherStartOptionsIsRefusedNamingWhatDiffers(@TempDir Path dir) throws Exception {
        LoaderOptions start = LoaderOptions.defaults().with(A, 1).with("clip.frames", 16);
        Tuner.of(SPACE, TunerJournalTest::fake).startFrom(start).maxTrials(3).journal(dir).run();
        List<String> lines = Files.readAllLines(dir.resolve("experiments.jsonl"));

        // 4 frames against 16 is another workload: its trials compared with the recorded ones would credit a config.
        LoaderOptions fewerFrames = start.with("clip.frames", 4);
        assertThat(TunerJournal.startDifferences(Tuner.readJournal(dir), List.of(A, "config.sinkCapacity"), fewerFrames))
                .containsExactly("clip.frames: 16 → 4");
        assertThatThrownBy(() -> Tuner.of(SPACE, TunerJournalTest::fake).startFrom(fewerFrames).maxTrials(6).journal(dir).run())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("its search started from other options: clip.frames: 16 → 4")
                .hasMessageContaining("(expected: the options it started from, to continue it, or another journal)");
        assertThat(Files.readAllLines(dir.resolve("experiments.jsonl"))).as("no trial ran").isEqualTo(lines);

        // What the search moves is no other workload: the recorded start stands on the effective values of every knob.
        LoaderOptions otherKnob = start.with(A, 4);
        assertThat(TunerJournal.startDifferences(Tuner.readJournal(dir), List.of(A, "config.sinkCapacity"), otherKnob)).isEmpty();
        // Nor is a knob the continuation's space leaves out: the recorded start holds its value, this start its default.
        assertThat(TunerJournal.startDifferences(Tuner.readJournal(dir), List.of("config.sinkCapacity"), otherKnob)).isEmpty();
        TuneResult continued = Tuner.of(SPACE, TunerJournalTest::fake).startFrom(otherKnob).maxTrials(5).journal(dir).run();
        assertThat(continued.experiments()).hasSize(5);
    }

    @Test
    void whenNothingBeatsTheStartItsMeanIsTheBestsAndTheReportGivesOneFigure(@TempDir Path dir) throws Exception {
        // The start stands on the peak (a=5): every candidate is slower, the start runs again as the reference, so its
        // runs are more than its repeats. Its figure as the start and as the best are one mean of the same runs.
        LoaderOptions start = LoaderOptions.defaults().with(A, 5);
        TuneResult result = Tuner.of(SPACE, TunerJournalTest::fake).startFrom(start).maxTrials(10).repeats(2).journal(dir).run();
        assertThat(result.bestIsStart()).isTrue();
        assertThat(result.experiments()).filteredOn(e -> e.phase() == TrialPhase.REFERENCE).isNotEmpty();
        assertThat(result.startMean()).isEqualTo(result.bestMean()).isPositive();
        assertThat(result.speedup()).isEqualTo(1.0);
        String html = TuneReport.html(result, List.of(), null, "");
        assertThat(html).contains("Best: the start config, <b>", "nothing beat it above the noise").doesNotContain("x</b>.");
    }

    @Test
    void aSearchSpaceReadsFromJson() {
        SearchSpace s = SearchSpace.fromJson("""
                {"knobs": [{"name": "config.stages.decode.concurrency", "min": 1, "max": 6},
                           {"name": "config.stages.decode.queueCapacity", "min": 2, "max": 64, "scale": "log"},
                           {"name": "decode.threads", "min": 1, "max": 4},
                           {"name": "decode.fusedConvert", "scale": "boolean"}]}""");
        assertThat(s.knobs()).hasSize(4);
        assertThat(s.knob("config.stages.decode.queueCapacity").scale()).isEqualTo(Knob.Scale.LOG);
        assertThat(s.knob("config.stages.decode.queueCapacity").label()).isEqualTo("decode.queueCapacity");
        assertThat(s.knob("decode.threads").option()).contains(LoaderOption.DECODER_THREADS);
        assertThat(SearchSpace.fromJson(s.toJson())).isEqualTo(s);
        Map<String, Integer> p = s.pointOf(LoaderOptions.builder().fusedConvert(true).decoder(3, true).build());
        assertThat(p).containsEntry("decode.fusedConvert", 1).containsEntry("decode.threads", 3)
                .containsEntry("config.stages.decode.concurrency", 1);
        p.put("config.stages.decode.concurrency", 4);
        LoaderOptions at = s.optionsAt(LoaderOptions.defaults(), p);
        assertThat(at.decode().fusedConvert()).isTrue();
        assertThat(at.decode().threads()).isEqualTo(3);
        assertThat(at.config().stage("decode").concurrency()).isEqualTo(4);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SearchSpace.fromJson("{\"knobs\": [{\"name\": \"decode.speed\"}]}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("decode.speed: not a place in the options document");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Knob.linear("decode.fusedConvert", 0, 1))
                .hasMessage("knob 'decode.fusedConvert': holds a boolean (expected: an integer, or scale boolean)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Knob.linear("config.stages.decode.concurrency", 0, 4))
                .hasMessage("knob 'config.stages.decode.concurrency' range: 0..4 (expected: 1 <= min <= max)");
    }
}
