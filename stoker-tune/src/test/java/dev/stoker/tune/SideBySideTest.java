package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.SideBySide;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialRunner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Side-by-side runs rotate their order from round to round, and take ratios round by round, past failed runs. */
class SideBySideTest {
    private static LoaderOptions workers(int n) {
        return LoaderOptions.defaults().with("config.stages.a.concurrency", n);
    }

    @Test
    void roundsRotateTheOrderAndRatiosCancelTheMachinesDrift() {
        List<Integer> order = new ArrayList<>();
        int[] calls = {0};
        // The machine slows down by 10% a run; config n runs at 100 x n on the machine as it is.
        TrialRunner runner = t -> {
            int n = t.options().config().stage("a").concurrency();
            order.add(n);
            if (n == 3 && calls[0] == 4) {
                calls[0]++;
                throw new IllegalStateException("crashed");
            }
            return TrialMetrics.throughputOnly(100.0 * n * Math.pow(0.9, calls[0]++));
        };
        List<String> lines = new ArrayList<>();
        SideBySide s = SideBySide.run(runner, List.of(new SideBySide.Candidate("one", workers(1)),
                new SideBySide.Candidate("two", workers(2)), new SideBySide.Candidate("three", workers(3))),
                3, 1000, lines::add);
        assertThat(order).containsExactly(1, 2, 3, 2, 3, 1, 3, 1, 2);
        assertThat(lines).hasSize(9).anyMatch(l -> l.contains("three") && l.contains("failed: crashed"));
        assertThat(s.entry("three").samplesPerSecond().get(1)).isNaN();
        SideBySide.Ratio r = s.ratio("two", "one");
        assertThat(r.rounds()).isEqualTo(3);
        // Round by round: 2 x 0.9 (two ran after one), 2 / 0.9^2 (two ran two runs before one), 2 x 0.9: the rotation
        // cancels the drift, and the geometric mean is the true 2.
        assertThat(r.geometricMean()).isCloseTo(2.0, within(1e-9));
        assertThat(r.min()).isCloseTo(1.8, within(1e-9));
        assertThat(s.ratio("three", "one").rounds()).as("the failed round left out").isEqualTo(2);
        assertThat(s.entry("one").relativeSd()).isPositive();
        assertThat(Tuner.toJson(s)).contains("\"samples_per_second\"", "\"mean\"", "\"relative_sd\"");
    }
}
