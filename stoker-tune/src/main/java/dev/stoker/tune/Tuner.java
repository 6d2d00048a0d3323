package dev.stoker.tune;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.PipelineConfig;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The offline autotuner: finds the fastest configuration of a pipeline by experiment. Each trial runs a
 * config through a {@link TrialRunner} (a child process for {@code stoker tune}; anything in tests) and
 * reads back throughput and per-stage stats.
 *
 * <p>The search: run the start config {@code repeats} times; then, from the best trial so far (the
 * incumbent), try the changes {@link Hypotheses} reads from its stats, best first; when none is left, run
 * once more a point that the bottleneck's own signals still propose but whose one run was not kept (a second
 * look: a run that a stall of the shared machine hit must not close for good the direction the stats point
 * to); then sweep the most sensitive knob. The noise is measured, not assumed: the pooled spread (of log
 * throughput) of every config that ran more than once, so it sharpens as the search goes. A candidate is compared with the
 * incumbent's score on the machine as it is now, the mean of its newest {@value #RECENT_RUNS} runs (the
 * incumbent runs again after every {@value #REFERENCE_EVERY} candidates, a {@code reference} trial). A gain
 * above {@code max(minGain, 2 sigma sqrt(1 + 1/n))} (two standard deviations of the difference from the n
 * runs' mean) is kept at once; a smaller one above {@code minGain} is confirmed side by side: the incumbent
 * runs, then the candidate again ({@code confirm}), and the candidate is kept when the mean of its two runs
 * beats the incumbent's by more than two standard deviations of that difference. Otherwise the search
 * backs off to the incumbent. It stops after {@code maxTrials} trials, {@code patience} candidates in a row
 * without a kept one, the time budget, or when nothing is left to try. Every trial records its parent, its
 * change and the hypothesis behind it.
 *
 * <p>With a journal, every trial is appended to {@code experiments.jsonl} as it ends and {@code best.json}
 * is rewritten when the best changes; a search given a journal that exists continues where it stopped.
 *
 * <pre>{@code
 * TuneResult r = Tuner.of(space, runner).startFrom(config, Map.of()).maxTrials(20).journal(dir).run();
 * r.bestConfig().write(Path.of("best.json"));
 * }</pre>
 */
public final class Tuner {
    static final ObjectMapper JSON = new ObjectMapper();
    /** Runs of a config that make its current score: the newest, so that a machine's drift is followed. */
    static final int RECENT_RUNS = 3;
    /** Candidate trials after which the best config runs again. */
    static final int REFERENCE_EVERY = 4;

    private final SearchSpace givenSpace;
    private final TrialRunner runner;
    private PipelineConfig startConfig = PipelineConfig.EMPTY;
    private Map<String, String> startOptions = Map.of();
    private int maxTrials = 20;
    private int patience = 8;
    private int repeats = 3;
    private double minGain = 0.03;
    private Duration trialTimeout = Duration.ofMinutes(5);
    private Duration totalTime = Duration.ofHours(24);
    private int cores = Runtime.getRuntime().availableProcessors();
    private Path journal;
    private Consumer<Experiment> onTrial = e -> { };

    private Tuner(SearchSpace space, TrialRunner runner) {
        this.givenSpace = Objects.requireNonNull(space, "space");
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    public static Tuner of(SearchSpace space, TrialRunner runner) {
        return new Tuner(space, runner);
    }

    /** The config to start from (laid over the code's defaults by the runner) and its options. */
    public Tuner startFrom(PipelineConfig config, Map<String, String> options) {
        this.startConfig = Objects.requireNonNull(config, "config");
        this.startOptions = Map.copyOf(options);
        return this;
    }

    /** Trials in all, the start config's repeats included (default 20). */
    public Tuner maxTrials(int n) {
        this.maxTrials = positive("maxTrials", n);
        return this;
    }

    /** Stop after this many candidate trials in a row without a kept improvement (default 8). */
    public Tuner patience(int n) {
        this.patience = positive("patience", n);
        return this;
    }

    /** Runs of the start config, to measure the noise (default 3). */
    public Tuner repeats(int n) {
        this.repeats = positive("repeats", n);
        return this;
    }

    /** Smallest relative gain that counts, when the noise is smaller (default 0.03). */
    public Tuner minGain(double gain) {
        if (!(gain >= 0)) {
            throw new IllegalArgumentException("minGain: " + gain + " (expected: 0+)");
        }
        this.minGain = gain;
        return this;
    }

    public Tuner trialTimeout(Duration timeout) {
        this.trialTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    public Tuner totalTime(Duration total) {
        this.totalTime = Objects.requireNonNull(total);
        return this;
    }

    /** Cores of the machine the trials run on (default: this one's), for the oversubscription rule. */
    public Tuner cores(int n) {
        this.cores = positive("cores", n);
        return this;
    }

    /** Appends every trial to {@code dir/experiments.jsonl}, keeps {@code dir/best.json}; continues a search found there. */
    public Tuner journal(Path dir) {
        this.journal = dir;
        return this;
    }

    /** Called after every trial (progress output). */
    public Tuner onTrial(Consumer<Experiment> listener) {
        this.onTrial = Objects.requireNonNull(listener);
        return this;
    }

    private static int positive(String what, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(what + ": " + n + " (expected: 1+)");
        }
        return n;
    }

    /** Reads the trials of an earlier search from {@code experiments.jsonl}; empty when there is none. */
    public static List<Experiment> readJournal(Path dir) {
        Path file = dir.resolve("experiments.jsonl");
        List<Experiment> list = new ArrayList<>();
        if (!Files.exists(file)) {
            return list;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    try {
                        list.add(JSON.readValue(line, Experiment.class));
                    } catch (IOException e) {
                        break;   // a line cut short by a crash ends the journal
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return list;
    }

    /** Runs the search (or continues it) until a budget ends it. */
    public TuneResult run() {
        List<Experiment> history = journal == null ? new ArrayList<>() : readJournal(journal);
        if (journal != null) {
            try {
                Files.createDirectories(journal);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + journal + ": " + e.getMessage(), e);
            }
        }
        Search s = new Search(history);
        return s.run();
    }

    /** How a trial's run ended, before the search decides what it means. */
    private record Run(String status, String message, TrialMetrics metrics, double started, double duration) {
        double samplesPerSecond() {
            return metrics != null ? metrics.samplesPerSecond() : 0;
        }
    }

    private final class Search {
        final List<Experiment> history;
        final Set<Map<String, Integer>> tried = new HashSet<>();
        SearchSpace space;
        Hypotheses rules;
        final long startNanos = System.nanoTime();
        final double timeOffset;
        Experiment incumbent;
        Experiment lastKept;
        int sinceKept;        // candidate trials since the last kept one (references and confirmations not counted)
        int sinceReference;   // candidate trials since the incumbent last ran

        Search(List<Experiment> history) {
            this.history = history;
            widen(givenSpace.valuesOf(startConfig, startOptions));
            if (!history.isEmpty()) {
                widen(history.getFirst().point());
            }
            double offset = 0;
            for (Experiment e : history) {
                tried.add(e.point());
                offset = Math.max(offset, e.startedSeconds() + e.durationSeconds());
                if (e.kept()) {
                    lastKept = e;
                    sinceKept = 0;
                    sinceReference = 0;
                } else if (isCandidate(e.phase())) {
                    sinceKept++;
                    sinceReference++;
                } else {
                    sinceReference = 0;
                }
            }
            this.timeOffset = offset;
        }

        void widen(Map<String, Integer> values) {
            space = (space == null ? givenSpace : space).widenedTo(values);
            rules = new Hypotheses(space, cores);
        }

        double elapsedSeconds() {
            return timeOffset + (System.nanoTime() - startNanos) / 1e9;
        }

        List<Experiment> baseline() {
            return history.stream().filter(e -> e.phase().equals("start") || e.phase().equals("repeat")).toList();
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
                if (e.ok() && e.samplesPerSecond() > 0 && !e.phase().equals("second-look")) {
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

        double startMean() {
            return baseline().stream().filter(Experiment::ok).mapToDouble(Experiment::samplesPerSecond).average().orElse(0);
        }

        /** The ok runs of {@code point}, newest last. */
        List<Double> runsOf(Map<String, Integer> point) {
            return history.stream().filter(e -> e.ok() && e.point().equals(point)).map(Experiment::samplesPerSecond).toList();
        }

        /** Mean of the last {@code n} runs of {@code point}: what it does on the machine as it is now. */
        double recentScore(Map<String, Integer> point, int n) {
            List<Double> xs = runsOf(point);
            return xs.subList(Math.max(0, xs.size() - n), xs.size()).stream().mapToDouble(d -> d).average().orElse(0);
        }

        int recentCount(Map<String, Integer> point, int n) {
            return Math.min(n, runsOf(point).size());
        }

        double incumbentScore() {
            return incumbent == null ? 0 : recentScore(incumbent.point(), RECENT_RUNS);
        }

        /** Re-derives the incumbent from the history: the start trial, then each kept trial. */
        void settleIncumbent() {
            incumbent = null;
            for (Experiment e : history) {
                if (e.kept()) {
                    incumbent = e;
                }
            }
        }

        boolean budgetLeft() {
            return history.size() < maxTrials && elapsedSeconds() < totalTime.toSeconds();
        }

        TuneResult run() {
            String stop = null;
            if (history.isEmpty()) {
                Map<String, Integer> startPoint = space.pointOf(startConfig, startOptions);   // refined below from the effective config
                Run r = execute(space.configOf(startConfig, Map.of()), startOptions);
                Experiment first = record(-1, "start", null, "the start config, as given", space.configOf(startConfig, Map.of()),
                        startOptions, startPoint, r, true, 0, r.samplesPerSecond());
                if (first.ok() && first.metrics().effectiveConfig() != null) {
                    // The effective config fills in what the start config left to the code (queue capacities...).
                    widen(space.valuesOf(first.metrics().effectiveConfig(), startOptions));
                    Map<String, Integer> effective = space.pointOf(first.metrics().effectiveConfig(), startOptions);
                    if (!effective.equals(first.point())) {
                        first = withPoint(first, effective);
                        history.set(history.size() - 1, first);
                        rewriteJournal();
                    }
                }
                tried.add(first.point());
                writeBest(first);
            }
            Experiment start = history.getFirst();
            while (baseline().size() < repeats && budgetLeft()) {
                PipelineConfig config = configFor(start.point());
                Map<String, String> options = space.optionsOf(startOptions, start.point());
                Run r = execute(config, options);
                record(start.trial(), "repeat", "none", "the start config again: the spread of its runs is the noise",
                        config, options, start.point(), r, false, 0, startMeanWith(r.samplesPerSecond()));
            }
            settleIncumbent();
            if (incumbent == null) {
                incumbent = start;
            }
            while (stop == null) {
                if (history.size() >= maxTrials) {
                    stop = "trial budget spent (" + maxTrials + " trials)";
                    break;
                }
                if (sinceKept >= patience && lastKept != null) {
                    stop = "patience: " + sinceKept + " trials in a row without an improvement above the noise";
                    break;
                }
                if (elapsedSeconds() >= totalTime.toSeconds()) {
                    stop = "time budget spent (" + totalTime.toMinutes() + " min)";
                    break;
                }
                if (sinceReference >= REFERENCE_EVERY) {
                    reference("the best config again, after " + sinceReference + " trials of others: it is what they are"
                            + " measured against, on the machine as it is now");
                    continue;
                }
                List<Move> moves = rules.propose(incumbent, lastKept, history, tried);
                if (moves.isEmpty()) {
                    moves = secondLooks();
                }
                if (moves.isEmpty()) {
                    moves = rules.sweep(incumbent, history, tried);
                }
                if (moves.isEmpty()) {
                    stop = "nothing left to try around the best config";
                    break;
                }
                evaluate(moves.getFirst());
            }
            settleIncumbent();
            Experiment best = incumbent != null ? incumbent : start;
            double bestMean = runsOf(best.point()).stream().mapToDouble(d -> d).average().orElse(0);
            return new TuneResult(best, configFor(best.point()), space.optionsOf(startOptions, best.point()), start,
                    startMean(), bestMean, noise(), List.copyOf(history), stop);
        }

        /**
         * The rules' strong proposals ({@link Hypotheses#STRONG}: the bottleneck's own signals) whose point ran once,
         * as a candidate that was not kept: one run, on a shared machine, can be the one a stall hit, and a
         * direction the stats still point to should not be closed by it. Each point gets one second look.
         */
        List<Move> secondLooks() {
            Map<Map<String, Integer>, List<Experiment>> runs = new LinkedHashMap<>();
            for (Experiment e : history) {
                runs.computeIfAbsent(e.point(), k -> new ArrayList<>()).add(e);
            }
            Set<Map<String, Integer>> closed = new HashSet<>(tried);
            Map<Map<String, Integer>, Experiment> once = new LinkedHashMap<>();
            for (Map.Entry<Map<String, Integer>, List<Experiment>> r : runs.entrySet()) {
                Experiment e = r.getValue().getFirst();
                if (r.getValue().size() == 1 && isCandidate(e.phase()) && e.ok() && !e.kept()) {
                    closed.remove(r.getKey());
                    once.put(r.getKey(), e);
                }
            }
            List<Move> moves = new ArrayList<>();
            for (Move m : rules.propose(incumbent, lastKept, history, closed)) {
                Experiment first = once.get(m.point());
                if (first != null && m.priority() >= Hypotheses.STRONG) {
                    moves.add(new Move(m.point(), m.knob(), m.delta(), m.change(), String.format(Locale.ROOT,
                            "a second look: trial %d ran this once, at %s/s, not kept; the stats still say: %s",
                            first.trial(), rate(first.samplesPerSecond()), m.hypothesis()), "second-look", m.priority()));
                }
            }
            return moves;
        }

        /**
         * Runs a candidate and decides. A gain far above the noise is kept at once; a smaller one that still beats
         * {@code minGain} is confirmed: the best config runs again, then the candidate, so that the two are
         * compared side by side in time (a machine that got busier or quieter meanwhile moves both), and the
         * candidate is kept when the mean of its two runs beats the best config's recent mean by more than twice
         * the noise of that difference.
         */
        void evaluate(Move move) {
            PipelineConfig config = configFor(move.point());
            Map<String, String> options = space.optionsOf(startOptions, move.point());
            double score = incumbentScore();
            double sigma = Double.isNaN(noise()) ? 0 : noise();
            int n = Math.max(1, recentCount(incumbent.point(), RECENT_RUNS));
            // Two standard deviations of the difference between one run and the mean of n: kept at once.
            double clearGain = Math.max(minGain, 2 * sigma * Math.sqrt(1 + 1.0 / n));
            Run r = execute(config, options);
            double sps = r.samplesPerSecond();
            boolean clear = r.metrics() != null && sps > score * (1 + clearGain);
            Experiment first = record(incumbent.trial(), move.phase(), move.change(), move.hypothesis(), config, options,
                    move.point(), r, clear, score * clearGain, clear ? sps : score);
            sinceReference++;
            if (clear) {
                becomeIncumbent(first);
                return;
            }
            boolean promising = r.metrics() != null && sps > score * (1 + minGain);
            if (!promising || history.size() + 2 > maxTrials) {
                sinceKept++;
                return;
            }
            reference(String.format(Locale.ROOT, "the best config again, next to trial %d (%+.0f%% in one run, short of the"
                    + " %.0f%% a single run needs): a side-by-side comparison", first.trial(), (sps / score - 1) * 100,
                    clearGain * 100));
            double again = incumbentScore();
            int m = Math.max(1, recentCount(incumbent.point(), RECENT_RUNS));
            double sigmaNow = Double.isNaN(noise()) ? 0 : noise();
            double needGain = Math.max(minGain, 2 * sigmaNow * Math.sqrt(0.5 + 1.0 / m));
            Run r2 = execute(config, options);
            double mean = r2.metrics() == null ? 0 : (sps + r2.samplesPerSecond()) / 2;
            boolean keep = r2.metrics() != null && mean > again * (1 + needGain);
            Experiment second = record(first.parent(), "confirm", move.change(), String.format(Locale.ROOT,
                    "trial %d again, after the best config's run: kept when the mean of the two beats the best config's recent"
                            + " mean by more than %.0f%%", first.trial(), needGain * 100), config, options, move.point(), r2, keep,
                    again * needGain, keep ? mean : again);
            if (keep) {
                becomeIncumbent(second);
            } else {
                sinceKept++;
            }
        }

        void becomeIncumbent(Experiment e) {
            incumbent = e;
            lastKept = e;
            sinceKept = 0;
            sinceReference = 0;
            writeBest(e);
        }

        /** Runs the incumbent again (drift, noise, a fresh score to compare with). */
        void reference(String why) {
            PipelineConfig config = configFor(incumbent.point());
            Map<String, String> options = space.optionsOf(startOptions, incumbent.point());
            Run r = execute(config, options);
            record(incumbent.trial(), "reference", "none", why, config, options, incumbent.point(), r, false, 0,
                    incumbentScoreWith(r));
            sinceReference = 0;
        }

        double incumbentScoreWith(Run r) {
            List<Double> xs = new ArrayList<>(runsOf(incumbent.point()));
            if (r.metrics() != null) {
                xs.add(r.samplesPerSecond());
            }
            List<Double> recent = xs.subList(Math.max(0, xs.size() - RECENT_RUNS), xs.size());
            return recent.stream().mapToDouble(d -> d).average().orElse(0);
        }

        PipelineConfig configFor(Map<String, Integer> point) {
            return space.configOf(startConfig, point);
        }

        /** Runs one trial; a trial that fails (not one that hangs) runs once more: on a shared machine a run can die for reasons of its own. */
        Run execute(PipelineConfig config, Map<String, String> options) {
            int number = history.size();
            double started = elapsedSeconds();
            long t0 = System.nanoTime();
            String status = "ok";
            String message = null;
            TrialMetrics metrics = null;
            try {
                for (int attempt = 0; attempt < 2; attempt++) {
                    try {
                        metrics = runner.run(new TrialSpec(number, config, options, trialTimeout.toMillis()));
                        if (metrics == null || !(metrics.samplesPerSecond() > 0)) {
                            status = "failed";
                            message = "no samples delivered";
                            metrics = null;
                        } else {
                            status = "ok";
                            message = null;
                            break;
                        }
                    } catch (TimeoutException | InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        if (attempt == 1) {
                            throw e;
                        }
                    }
                }
            } catch (TimeoutException e) {
                status = "timeout";
                message = e.getMessage() != null ? e.getMessage() : "ran past " + trialTimeout.toSeconds() + " s";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("tuning interrupted", e);
            } catch (Exception e) {
                status = "failed";
                message = e.getMessage() != null ? e.getMessage() : e.toString();
            }
            return new Run(status, message, metrics, started, (System.nanoTime() - t0) / 1e9);
        }

        /** Appends a trial to the history and the journal, and tells the listener. */
        Experiment record(int parent, String phase, String change, String hypothesis, PipelineConfig config,
                          Map<String, String> options, Map<String, Integer> point, Run r, boolean kept, double threshold,
                          double bestSoFar) {
            Experiment e = new Experiment(history.size(), parent, phase, change, hypothesis, new java.util.TreeMap<>(point),
                    r.status(), r.message(), r.metrics(), kept && r.metrics() != null, round(bestSoFar), round(threshold),
                    round(r.started()), round(r.duration()), JSON.valueToTree(JsonConfig.tree(config)), new LinkedHashMap<>(options));
            history.add(e);
            tried.add(e.point());
            if (phase.equals("start")) {
                lastKept = e;
                sinceKept = 0;
            }
            append(e);
            onTrial.accept(e);
            return e;
        }

        double startMeanWith(double sps) {
            List<Double> xs = new ArrayList<>(baseline().stream().filter(Experiment::ok).map(Experiment::samplesPerSecond).toList());
            if (sps > 0) {
                xs.add(sps);
            }
            return xs.stream().mapToDouble(d -> d).average().orElse(0);
        }

        Experiment withPoint(Experiment e, Map<String, Integer> point) {
            PipelineConfig config = configFor(point);
            return new Experiment(e.trial(), e.parent(), e.phase(), e.change(), e.hypothesis(), new java.util.TreeMap<>(point),
                    e.status(), e.message(), e.metrics(), e.kept(), e.bestSoFar(), e.threshold(), e.startedSeconds(),
                    e.durationSeconds(), JSON.valueToTree(JsonConfig.tree(config)), e.options());
        }

        void append(Experiment e) {
            if (journal == null) {
                return;
            }
            try (BufferedWriter w = Files.newBufferedWriter(journal.resolve("experiments.jsonl"), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                w.write(JSON.writeValueAsString(e));
                w.newLine();
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot append to " + journal.resolve("experiments.jsonl") + ": " + ex.getMessage(), ex);
            }
        }

        void rewriteJournal() {
            if (journal == null) {
                return;
            }
            StringBuilder text = new StringBuilder();
            try {
                for (Experiment e : history) {
                    text.append(JSON.writeValueAsString(e)).append('\n');
                }
                Files.writeString(journal.resolve("experiments.jsonl"), text);
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot write " + journal.resolve("experiments.jsonl") + ": " + ex.getMessage(), ex);
            }
        }

        void writeBest(Experiment e) {
            if (journal != null) {
                configFor(e.point()).write(journal.resolve("best.json"));
            }
        }
    }

    /** Trials that try a new config (not the start, its repeats, references or confirmations), or one again. */
    static boolean isCandidate(String phase) {
        return phase.equals("hypothesis") || phase.equals("sweep") || phase.equals("second-look");
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** {@code value} as JSON (a side-by-side comparison, say). */
    public static String toJson(Object value) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Formats a throughput for messages. */
    static String rate(double samplesPerSecond) {
        return String.format(Locale.ROOT, samplesPerSecond >= 100 ? "%.0f" : "%.1f", samplesPerSecond);
    }

    /** A PipelineConfig as a JSON tree, in its own field names (what {@code stoker bench --config} reads). */
    static final class JsonConfig {
        private JsonConfig() { }

        static com.fasterxml.jackson.databind.JsonNode tree(PipelineConfig config) {
            try {
                return JSON.readTree(config.toJson());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
