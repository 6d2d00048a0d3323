package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialPhase;
import dev.stoker.tune.internal.TrialRunner;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The offline search on a model with no noise but one unlucky run: read (2 ms per item) then work (10 ms), so
 * throughput is min(500 x read, 100 x work) items/s, best at work 8 with read 2+ (800/s). One stalled run of the
 * decisive step must not close it, and two stages saturated at once get a worker each together.
 */
class TunerAgainstUnluckyRunsTest {
    private static final String READ = "config.stages.read.concurrency";
    private static final String WORK = "config.stages.work.concurrency";
    private static final SearchSpace SPACE = SearchSpace.of(Knob.linear(READ, 1, 8), Knob.linear(WORK, 1, 8));

    /** Instant trials of the model; the first run of {@code stalled} (if any) delivers half. */
    private static TrialRunner model(Map<String, Integer> stalled) {
        Set<Map<String, Integer>> seen = new HashSet<>();
        return t -> {
            int read = t.options().config().stage("read").concurrency();
            int work = t.options().config().stage("work").concurrency();
            double sps = Math.min(500.0 * read, 100.0 * work);
            if (Map.of(READ, read, WORK, work).equals(stalled) && seen.add(stalled)) {
                sps /= 2;
            }
            double readBusy = sps * 0.002 / read;
            double workBusy = sps * 0.010 / work;
            String bottleneck = readBusy >= workBusy ? "read" : "work";
            return new TrialMetrics(sps, bottleneck, "saturated", "bottleneck: " + bottleneck, 0.1, 0.0,
                    List.of(new TrialMetrics.Stage("source", 1, 0.1, 0, 0.9, 0, 0, 0, 0, 0),
                            new TrialMetrics.Stage("read", read, readBusy, 1 - readBusy, 0, 2, 2, 2, 0, 0.5),
                            new TrialMetrics.Stage("work", work, workBusy, 1 - workBusy, 0, 10, 10, 2, 0, 0.5)),
                    null, null, t.options().config());
        };
    }

    private static LoaderOptions start(int read, int work) {
        return LoaderOptions.defaults().with(READ, read).with(WORK, work);
    }

    @Test
    void aStalledRunOfTheDecisiveStepGetsASecondLook() {
        // From read 1 / work 8 (500/s, read saturated), read 1→2 is the one step to 800/s; its first run stalls.
        TuneResult r = Tuner.of(SPACE, model(Map.of(READ, 2, WORK, 8)))
                .startFrom(start(1, 8)).maxTrials(20).patience(6).cores(2).run();
        assertThat(r.best().samplesPerSecond()).isEqualTo(800);
        assertThat(r.experiments()).anySatisfy(e -> {
            assertThat(e.phase()).isEqualTo(TrialPhase.SECOND_LOOK);
            assertThat(e.point()).containsEntry(READ, 2).containsEntry(WORK, 8);
            assertThat(e.kept()).isTrue();
        });
    }

    @Test
    void theStalledRunAndItsSecondLookDoNotSetTheNoise() {
        // The model has no noise: the two runs of the second-looked point (400 and 800/s) are a selected pair.
        TuneResult r = Tuner.of(SPACE, model(Map.of(READ, 2, WORK, 8)))
                .startFrom(start(1, 8)).maxTrials(20).patience(6).cores(2).run();
        assertThat(r.noise()).isCloseTo(0, within(1e-9));
    }

    @Test
    void twoSaturatedStagesGetAWorkerEachTogether() {
        // read 1 and work 5 both deliver 500/s: one worker more for either alone gains nothing.
        TuneResult r = Tuner.of(SPACE, model(Map.of())).startFrom(start(1, 5)).maxTrials(20).patience(6).cores(2)
                .run();
        assertThat(r.best().samplesPerSecond()).isEqualTo(800);
        assertThat(r.experiments().get(3).change()).isEqualTo("read.concurrency 1→2, work.concurrency 5→6");
        assertThat(r.experiments().get(3).kept()).isTrue();
    }
}
