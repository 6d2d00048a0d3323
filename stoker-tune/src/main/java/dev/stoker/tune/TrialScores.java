package dev.stoker.tune;

import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.TrialPhase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the offline tuner's trials so far say: the noise of one run, and each config's score on the machine as it
 * is now (the mean of its newest {@value #RECENT_RUNS} runs, so that a machine's drift is followed). A view of the
 * search's history, which grows as it runs.
 */
final class TrialScores {
    /** Runs of a config that make its current score. */
    static final int RECENT_RUNS = 3;

    private final List<Experiment> history;

    TrialScores(List<Experiment> history) {
        this.history = history;
    }

    /** The start config's runs: the first, and its repeats. */
    List<Experiment> baseline() {
        return history.stream().filter(e -> e.phase().measuresStart()).toList();
    }

    /**
     * The relative noise of one run: the pooled standard deviation of log throughput over every config that
     * ran more than once (the start's repeats, the best config's reference runs, confirmations). NaN
     * before any config ran twice. A second look is left out: it runs because the first run looked low, so
     * the difference of the two is a selected one (often a stall against a normal run), not a fair sample
     * of the noise, and it would raise every later bar.
     */
    double noise() {
        Map<Map<String, Integer>, List<Double>> runs = new LinkedHashMap<>();
        for (Experiment e : history) {
            if (e.ok() && e.samplesPerSecond() > 0 && e.phase() != TrialPhase.SECOND_LOOK) {
                runs.computeIfAbsent(e.point(), k -> new ArrayList<>()).add(Math.log(e.samplesPerSecond()));
            }
        }
        double squares = 0;
        int freedom = 0;
        for (List<Double> xs : runs.values()) {
            if (xs.size() < 2) {
                continue;
            }
            double mean = xs.stream().mapToDouble(d -> d).average().orElse(0);
            for (double x : xs) {
                squares += (x - mean) * (x - mean);
            }
            freedom += xs.size() - 1;
        }
        return freedom == 0 ? Double.NaN : Math.sqrt(squares / freedom);
    }

    /** {@link #noise()}, 0 while it is not known. */
    double noiseOrZero() {
        double n = noise();
        return Double.isNaN(n) ? 0 : n;
    }

    /** The start config's mean with one more run of {@code sps} (0: a failed run, not counted). */
    double startMeanWith(double sps) {
        List<Double> xs = new ArrayList<>(baseline().stream().filter(Experiment::ok).map(Experiment::samplesPerSecond).toList());
        if (sps > 0) {
            xs.add(sps);
        }
        return xs.stream().mapToDouble(d -> d).average().orElse(0);
    }

    /** The ok runs of {@code point}, newest last. */
    List<Double> runsOf(Map<String, Integer> point) {
        return history.stream().filter(e -> e.ok() && e.point().equals(point)).map(Experiment::samplesPerSecond).toList();
    }

    /** Mean of all the ok runs of {@code point}. */
    double meanOf(Map<String, Integer> point) {
        return runsOf(point).stream().mapToDouble(d -> d).average().orElse(0);
    }

    /** What {@code point} does on the machine as it is now: the mean of its newest runs. */
    double recentScore(Map<String, Integer> point) {
        return recentMean(runsOf(point));
    }

    /** How many runs {@link #recentScore} averages. */
    int recentCount(Map<String, Integer> point) {
        return Math.min(RECENT_RUNS, runsOf(point).size());
    }

    /** {@link #recentScore} with one more run of {@code point}, not yet in the history. */
    double recentScoreWith(Map<String, Integer> point, TrialRun r) {
        List<Double> xs = new ArrayList<>(runsOf(point));
        if (r.metrics() != null) {
            xs.add(r.samplesPerSecond());
        }
        return recentMean(xs);
    }

    private static double recentMean(List<Double> xs) {
        return xs.subList(Math.max(0, xs.size() - RECENT_RUNS), xs.size()).stream().mapToDouble(d -> d).average().orElse(0);
    }

    /**
     * The gain one run of a candidate must show over the best config's recent mean of {@code n} runs to be kept at
     * once: two standard deviations of that difference, {@code 2 sigma sqrt(1 + 1/n)}, and at least {@code minGain}.
     */
    static double clearGain(double minGain, double sigma, int n) {
        return Math.max(minGain, 2 * sigma * Math.sqrt(1 + 1.0 / Math.max(1, n)));
    }

    /** The same for the mean of a candidate's two runs against the mean of {@code n}: {@code 2 sigma sqrt(1/2 + 1/n)}. */
    static double confirmedGain(double minGain, double sigma, int n) {
        return Math.max(minGain, 2 * sigma * Math.sqrt(0.5 + 1.0 / Math.max(1, n)));
    }
}
