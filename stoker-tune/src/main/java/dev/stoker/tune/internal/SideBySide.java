package dev.stoker.tune.internal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.stoker.loader.LoaderOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Configs measured side by side: {@code rounds} rounds of one run of each, their order rotating from round to
 * round, so that a machine that gets busier or quieter during the comparison moves every config alike, and
 * no config always runs first (or right after the same other one). Ratios between two configs are taken
 * round by round, then averaged (geometric mean), with their spread.
 *
 * <pre>{@code
 * SideBySide s = SideBySide.run(runner, List.of(new SideBySide.Candidate("start", start),
 *         new SideBySide.Candidate("best", best)), 3, 300_000, System.out::println);
 * s.ratio("best", "start");   // e.g. 1.42
 * }</pre>
 *
 * @param entries each config with its runs, in the order given
 */
public record SideBySide(@JsonProperty("entries") List<Entry> entries) {
    public SideBySide {
        entries = List.copyOf(entries);
    }

    /** A config to measure, by name. */
    public record Candidate(String name, LoaderOptions options) {
        public Candidate {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(options, "options");
        }
    }

    /**
     * One config's runs.
     *
     * @param samplesPerSecond each round's throughput, NaN for a run that failed
     */
    public record Entry(@JsonProperty("name") String name, @JsonProperty("samples_per_second") List<Double> samplesPerSecond) {
        public Entry {
            samplesPerSecond = List.copyOf(samplesPerSecond);
        }

        /** Mean over the runs that succeeded (NaN when none did). */
        @JsonProperty("mean")
        public double mean() {
            return samplesPerSecond.stream().filter(x -> !x.isNaN()).mapToDouble(x -> x).average().orElse(Double.NaN);
        }

        /** Relative standard deviation of the runs that succeeded (NaN with fewer than two). */
        @JsonProperty("relative_sd")
        public double relativeSd() {
            List<Double> ok = samplesPerSecond.stream().filter(x -> !x.isNaN()).toList();
            if (ok.size() < 2) {
                return Double.NaN;
            }
            double mean = mean();
            double var = ok.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / (ok.size() - 1);
            return Math.sqrt(var) / mean;
        }
    }

    /** A ratio between two configs' runs, round by round. */
    public record Ratio(double geometricMean, double min, double max, int rounds) {
        @Override
        public String toString() {
            return rounds == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx (rounds: %.2f to %.2f, %d)", geometricMean, min, max, rounds);
        }
    }

    /**
     * Measures every candidate {@code rounds} times, interleaved; a failed run counts as NaN and the comparison
     * goes on. {@code progress} hears one line per run.
     */
    public static SideBySide run(TrialRunner runner, List<Candidate> candidates, int rounds, long timeoutMillis,
                                 Consumer<String> progress) {
        if (rounds < 1 || candidates.isEmpty()) {
            throw new IllegalArgumentException("side by side: " + candidates.size() + " configs, " + rounds
                    + " rounds (expected: 1+ each)");
        }
        List<List<Double>> runs = new ArrayList<>();
        candidates.forEach(c -> runs.add(new ArrayList<>(java.util.Collections.nCopies(rounds, Double.NaN))));
        int trial = 0;
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < candidates.size(); k++) {
                int i = (round + k) % candidates.size();
                Candidate c = candidates.get(i);
                double sps;
                String note;
                try {
                    TrialMetrics m = runner.run(new TrialSpec(1000 + trial, c.options(), timeoutMillis));
                    sps = m == null || !(m.samplesPerSecond() > 0) ? Double.NaN : m.samplesPerSecond();
                    note = Double.isNaN(sps) ? "no samples delivered" : String.format(Locale.ROOT, "%.1f samples/s", sps);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("side-by-side comparison interrupted", e);
                } catch (Exception e) {
                    sps = Double.NaN;
                    note = "failed: " + e.getMessage();
                }
                trial++;
                runs.get(i).set(round, sps);
                progress.accept(String.format(Locale.ROOT, "side by side, round %d of %d: %-8s %s", round + 1, rounds,
                        c.name(), note));
            }
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            entries.add(new Entry(candidates.get(i).name(), runs.get(i)));
        }
        return new SideBySide(entries);
    }

    /** The named config's runs. */
    public Entry entry(String name) {
        for (Entry e : entries) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("side by side: no config '" + name + "' (expected one of "
                + entries.stream().map(Entry::name).toList() + ")");
    }

    /** {@code a}'s throughput over {@code b}'s, round by round (rounds where both ran). */
    @JsonIgnore
    public Ratio ratio(String a, String b) {
        List<Double> xs = entry(a).samplesPerSecond();
        List<Double> ys = entry(b).samplesPerSecond();
        double logSum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        int n = 0;
        for (int i = 0; i < Math.min(xs.size(), ys.size()); i++) {
            double x = xs.get(i);
            double y = ys.get(i);
            if (!Double.isNaN(x) && !Double.isNaN(y) && y > 0) {
                double r = x / y;
                logSum += Math.log(r);
                min = Math.min(min, r);
                max = Math.max(max, r);
                n++;
            }
        }
        return n == 0 ? new Ratio(Double.NaN, Double.NaN, Double.NaN, 0) : new Ratio(Math.exp(logSum / n), min, max, n);
    }
}
