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
 * <p>The search: run the start config {@code repeats} times (the spread is the noise); then, from the best
 * trial so far (the incumbent), try the changes {@link Hypotheses} reads from its stats, best first; when
 * none is left, sweep the most sensitive knob. A trial is kept, becoming the incumbent, only when it beats
 * the incumbent by more than {@code max(minGain x incumbent, 2 x noise)}; otherwise the search backs off to
 * the incumbent. It stops after {@code maxTrials} trials, {@code patience} trials in a row without a kept
 * one, the time budget, or when nothing is left to try. Every trial records its parent, its change and
 * the hypothesis behind it.
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

    /** Stop after this many trials in a row without a kept improvement (default 8). */
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

    private final class Search {
        final List<Experiment> history;
        final Set<Map<String, Integer>> tried = new HashSet<>();
        SearchSpace space;
        Hypotheses rules;
        final long startNanos = System.nanoTime();
        final double timeOffset;
        Experiment incumbent;
        double incumbentScore;
        Experiment lastKept;
        int sinceKept;

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
                } else {
                    sinceKept++;
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

        double noise() {
            List<Double> xs = baseline().stream().filter(Experiment::ok).map(Experiment::samplesPerSecond).toList();
            if (xs.size() < 2) {
                return Double.NaN;
            }
            double mean = xs.stream().mapToDouble(d -> d).average().orElse(0);
            double var = xs.stream().mapToDouble(d -> (d - mean) * (d - mean)).sum() / (xs.size() - 1);
            return Math.sqrt(var);
        }

        double startMean() {
            return baseline().stream().filter(Experiment::ok).mapToDouble(Experiment::samplesPerSecond).average().orElse(0);
        }

        double threshold(double score) {
            double noise = noise();
            return Math.max(minGain * score, Double.isNaN(noise) ? 0 : 2 * noise);
        }

        /** Re-derives the incumbent from the history: the start trial, then each kept trial. */
        void settleIncumbent() {
            incumbent = null;
            for (Experiment e : history) {
                if (e.kept()) {
                    incumbent = e;
                }
            }
            if (incumbent == null) {
                return;
            }
            incumbentScore = incumbent.phase().equals("start") ? startMean() : incumbent.samplesPerSecond();
        }

        boolean budgetLeft() {
            return history.size() < maxTrials && elapsedSeconds() < totalTime.toSeconds();
        }

        TuneResult run() {
            String stop = null;
            Map<String, Integer> startPoint = null;
            if (history.isEmpty()) {
                startPoint = space.pointOf(startConfig, startOptions);   // refined below from the effective config
                Experiment first = trial(-1, "start", null, "the start config, as given", space.configOf(startConfig, Map.of()),
                        startOptions, startPoint, true);
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
                trial(start.trial(), "repeat", "none", "the start config again: the spread of its runs is the noise",
                        configFor(start.point()), space.optionsOf(startOptions, start.point()), start.point(), false);
            }
            settleIncumbent();
            if (incumbent == null) {
                incumbent = start;
                incumbentScore = 0;
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
                List<Move> moves = rules.propose(incumbent, lastKept, history, tried);
                if (moves.isEmpty()) {
                    moves = rules.sweep(incumbent, history, tried);
                }
                if (moves.isEmpty()) {
                    stop = "nothing left to try around the best config";
                    break;
                }
                Move move = moves.getFirst();
                trial(incumbent.trial(), move.phase(), move.change(), move.hypothesis(), configFor(move.point()),
                        space.optionsOf(startOptions, move.point()), move.point(), false);
            }
            settleIncumbent();
            Experiment best = incumbent != null ? incumbent : start;
            return new TuneResult(best, configFor(best.point()), space.optionsOf(startOptions, best.point()), start,
                    startMean(), noise(), List.copyOf(history), stop);
        }

        PipelineConfig configFor(Map<String, Integer> point) {
            return space.configOf(startConfig, point);
        }

        Experiment trial(int parent, String phase, String change, String hypothesis, PipelineConfig config,
                         Map<String, String> options, Map<String, Integer> point, boolean isStart) {
            int number = history.size();
            double started = elapsedSeconds();
            long t0 = System.nanoTime();
            String status = "ok";
            String message = null;
            TrialMetrics metrics = null;
            try {
                // A trial that fails (not one that hangs) runs once more before it counts as failed: on a shared
                // machine a run can die or stall for reasons of its own.
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
            double duration = (System.nanoTime() - t0) / 1e9;
            double sps = metrics != null ? metrics.samplesPerSecond() : 0;
            boolean kept;
            double threshold;
            if (isStart) {
                kept = true;
                threshold = 0;
            } else if (phase.equals("repeat")) {
                kept = false;
                threshold = 0;
            } else {
                threshold = threshold(incumbentScore);
                kept = metrics != null && sps > incumbentScore + threshold;
            }
            double bestSoFar = Math.max(sps, incumbent == null ? 0 : incumbentScore);
            if (phase.equals("repeat") || isStart) {
                bestSoFar = isStart ? sps : startMeanWith(sps);
            } else if (!kept) {
                bestSoFar = incumbentScore;
            }
            Experiment e = new Experiment(number, parent, phase, change, hypothesis, new java.util.TreeMap<>(point), status,
                    message, metrics, kept, round(bestSoFar), round(threshold), round(started), round(duration),
                    JSON.valueToTree(JsonConfig.tree(config)), new LinkedHashMap<>(options));
            history.add(e);
            tried.add(e.point());
            if (!isStart && !phase.equals("repeat")) {
                if (kept) {
                    incumbent = e;
                    incumbentScore = sps;
                    lastKept = e;
                    sinceKept = 0;
                    writeBest(e);
                } else {
                    sinceKept++;
                }
            } else if (isStart) {
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

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
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
