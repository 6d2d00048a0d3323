package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialPhase;
import dev.stoker.tune.internal.TrialSpec;
import dev.stoker.tune.internal.TrialStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** What the offline tuner reads from its trials (noise, scores, the bars a gain must clear), and how a trial's run ends. */
class TrialScoresTest {
    private static final Map<String, Integer> A = Map.of("config.stages.a.concurrency", 1);
    private static final Map<String, Integer> B = Map.of("config.stages.a.concurrency", 2);

    @Test
    void theNoiseIsPooledOverEveryConfigThatRanTwiceButNotOverSecondLooks() {
        List<Experiment> history = new ArrayList<>();
        TrialScores scores = new TrialScores(history);
        history.add(trial(TrialPhase.START, A, 100));
        history.add(trial(TrialPhase.HYPOTHESIS, B, 150));
        assertThat(scores.noise()).as("no config ran twice").isNaN();
        assertThat(scores.noiseOrZero()).isZero();
        history.add(trial(TrialPhase.REPEAT, A, 110));
        history.add(trial(TrialPhase.SECOND_LOOK, B, 50));   // looked again because the first looked low: a selected pair
        double a = Math.log(110) - Math.log(100);
        assertThat(scores.noise()).isCloseTo(Math.abs(a) / Math.sqrt(2), Offset.offset(1e-12));
        history.add(trial(TrialPhase.REFERENCE, B, 165));
        double b = Math.log(165) - Math.log(150);
        // Two configs, one degree of freedom each: the pooled variance is the mean of the two pair variances.
        assertThat(scores.noise()).isCloseTo(Math.sqrt((a * a / 2 + b * b / 2) / 2), Offset.offset(1e-12));
        history.add(failed(TrialPhase.REFERENCE, B));
        assertThat(scores.noise()).as("a failed run says nothing of the noise").isCloseTo(Math.sqrt((a * a / 2 + b * b / 2) / 2),
                Offset.offset(1e-12));
    }

    @Test
    void aConfigsScoreIsTheMeanOfItsNewestRunsSoThatDriftIsFollowed() {
        List<Experiment> history = new ArrayList<>();
        TrialScores scores = new TrialScores(history);
        for (double sps : new double[] {100, 100, 200, 200, 200}) {
            history.add(trial(TrialPhase.REFERENCE, A, sps));
        }
        history.add(failed(TrialPhase.REFERENCE, A));
        assertThat(scores.recentScore(A)).as("the newest three ok runs").isEqualTo(200);
        assertThat(scores.recentCount(A)).isEqualTo(TrialScores.RECENT_RUNS);
        assertThat(scores.meanOf(A)).isEqualTo(160);
        assertThat(scores.recentScore(B)).isZero();
    }

    @Test
    void oneRunMustClearMoreThanTheMeanOfTwoAndNeverLessThanTheSmallestGain() {
        assertThat(TrialScores.clearGain(0.03, 0, 3)).isEqualTo(0.03);
        assertThat(TrialScores.clearGain(0.03, 0.05, 1)).isGreaterThan(TrialScores.clearGain(0.03, 0.05, 3));
        assertThat(TrialScores.confirmedGain(0.03, 0.05, 3)).isLessThan(TrialScores.clearGain(0.03, 0.05, 3))
                .isGreaterThan(0.03);
    }

    @Test
    void aTrialThatFailsOnceRunsAgainAndOneThatHangsDoesNot() {
        TrialSpec spec = new TrialSpec(0, LoaderOptions.defaults(), 1000);
        AtomicInteger calls = new AtomicInteger();
        TrialRun flaky = TrialRun.execute(t -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("child died");
            }
            return metrics(250);
        }, spec, 0);
        assertThat(flaky.status()).isEqualTo(TrialStatus.OK);
        assertThat(flaky.samplesPerSecond()).isEqualTo(250);
        assertThat(calls).hasValue(2);

        TrialRun broken = TrialRun.execute(t -> {
            throw new IllegalStateException("cannot open /data/x.mp4: no such file");
        }, spec, 0);
        assertThat(broken.status()).isEqualTo(TrialStatus.FAILED);
        assertThat(broken.message()).contains("/data/x.mp4");
        assertThat(broken.metrics()).isNull();

        calls.set(0);
        TrialRun hung = TrialRun.execute(t -> {
            calls.incrementAndGet();
            throw new TimeoutException("ran past 1 s and was killed");
        }, spec, 0);
        assertThat(hung.status()).isEqualTo(TrialStatus.TIMEOUT);
        assertThat(calls).as("a hung trial is not run again").hasValue(1);

        assertThat(TrialRun.execute(t -> metrics(0), spec, 0).message()).isEqualTo("no samples delivered");
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> TrialRun.execute(t -> {
                throw new InterruptedException();
            }, spec, 0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("interrupted");
        } finally {
            Thread.interrupted();
        }
    }

    private static TrialMetrics metrics(double sps) {
        return new TrialMetrics(sps, "a", "saturated", "bottleneck: a", 0.5, 0.1, List.of(), 0.2, null, null);
    }

    private static Experiment trial(TrialPhase phase, Map<String, Integer> point, double sps) {
        return new Experiment(0, -1, phase, null, "test", point, TrialStatus.OK, null, metrics(sps), false, 0, 0, 0, 0, null);
    }

    private static Experiment failed(TrialPhase phase, Map<String, Integer> point) {
        return new Experiment(0, -1, phase, null, "test", point, TrialStatus.FAILED, "boom", null, false, 0, 0, 0, 0, null);
    }
}
