package dev.stoker.tune;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.TrialPhase;
import dev.stoker.tune.internal.TrialSpec;
import dev.stoker.tune.internal.TuneReport;
import dev.stoker.tune.internal.TunerJournal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** One run of the offline tuner's search (a new one, or one continued from its journal): the loop {@link Tuner} describes. */
final class TunerSearch {
    /** Candidate trials after which the best config runs again. */
    static final int REFERENCE_EVERY = 4;

    private final Tuner.Settings settings;
    private final TunerJournal journal;
    private final List<Experiment> history;
    private final TrialScores scores;
    private final Set<Map<String, Integer>> tried = new HashSet<>();
    private SearchSpace space;
    private Hypotheses rules;
    private final long startNanos = System.nanoTime();
    private final double timeOffset;
    private Experiment incumbent;
    private Experiment lastKept;
    private int sinceKept;        // candidate trials since the last kept one (references and confirmations not counted)
    private int sinceReference;   // candidate trials since the incumbent last ran

    TunerSearch(Tuner.Settings settings, TunerJournal journal) {
        this.settings = settings;
        this.journal = journal;
        this.history = journal.open();
        // A search continued from other start options would measure another workload (other frames, sizes, ...) and
        // compare it with the recorded trials as if the config made the difference.
        List<String> differences = TunerJournal.startDifferences(history,
                settings.space().knobs().stream().map(Knob::name).toList(), settings.startOptions());
        if (!differences.isEmpty()) {
            throw new IllegalArgumentException("journal: its search started from other options: " + String.join("; ", differences)
                    + " (expected: the options it started from, to continue it, or another journal)");
        }
        this.scores = new TrialScores(history);
        widen(settings.space().valuesOf(settings.startOptions()));
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
            } else if (e.phase().isCandidate()) {
                sinceKept++;
                sinceReference++;
            } else {
                sinceReference = 0;
            }
        }
        this.timeOffset = offset;
    }

    private void widen(Map<String, Integer> values) {
        space = (space == null ? settings.space() : space).widenedTo(values);
        rules = new Hypotheses(space, settings.cores());
    }

    private double elapsedSeconds() {
        return timeOffset + (System.nanoTime() - startNanos) / 1e9;
    }

    private double incumbentScore() {
        return incumbent == null ? 0 : scores.recentScore(incumbent.point());
    }

    /** Re-derives the incumbent from the history: the start trial, then each kept trial. */
    private void settleIncumbent() {
        incumbent = null;
        for (Experiment e : history) {
            if (e.kept()) {
                incumbent = e;
            }
        }
    }

    TuneResult run() {
        String stop = null;
        if (history.isEmpty()) {
            runStart();
        }
        Experiment start = history.stream().filter(e -> e.phase() == TrialPhase.START && e.ok()).findFirst()
                .orElse(history.getFirst());
        // The noise is the spread of the start's runs that ran: a failed one is no sample of it (twice the runs at most,
        // so that a start failing now and then still ends). A start that never ran has no point to repeat.
        while (start.ok() && scores.baseline().stream().filter(Experiment::ok).count() < settings.repeats()
                && scores.baseline().size() < 2L * settings.repeats() && history.size() < settings.maxTrials()
                && elapsedSeconds() < settings.totalTime().toSeconds()) {
            LoaderOptions options = optionsFor(start.point());
            TrialRun r = execute(options);
            record(start.trial(), TrialPhase.REPEAT, "none", "the start config again: the spread of its runs is the noise",
                    options, start.point(), r, false, 0, scores.startMeanWith(r.samplesPerSecond()));
        }
        settleIncumbent();
        if (incumbent == null) {
            incumbent = start;
        }
        if (scores.baseline().stream().noneMatch(Experiment::ok)) {
            // Nothing measured to search from, or against: a search from here would recommend a config never run.
            Experiment last = scores.baseline().getLast();
            stop = "the start config never ran (" + scores.baseline().size() + " tries; " + last.status() + ": "
                    + last.message() + ")";
        }
        while (stop == null) {
            stop = stopReason();
            if (stop != null) {
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
        // Both means over all of a config's runs (references and confirmations too): the start's mean over its
        // repeats alone, beside the best's over all its runs, read as a change when the best is the start itself.
        return new TuneResult(best, optionsFor(best.point()), start,
                scores.meanOf(start.point()), scores.meanOf(best.point()), scores.noise(), List.copyOf(history), stop);
    }

    /**
     * Runs the start options, again while they fail (up to {@code repeats} times: a shared machine's run can die for
     * reasons of its own); the effective config fills in what they left to the loader (queue capacities...).
     */
    private void runStart() {
        LoaderOptions start = settings.startOptions();
        Experiment first;
        do {
            TrialRun r = execute(start);
            first = record(-1, TrialPhase.START, null, "the start config, as given", start, space.pointOf(start), r, true,
                    0, r.samplesPerSecond());
        } while (!first.ok() && history.size() < Math.min(settings.maxTrials(), Math.max(1, settings.repeats()))
                && elapsedSeconds() < settings.totalTime().toSeconds());
        if (first.ok() && first.metrics().effectiveConfig() != null) {
            LoaderOptions ran = start.toBuilder().config(first.metrics().effectiveConfig()).build();
            widen(space.valuesOf(ran));
            Map<String, Integer> effective = space.pointOf(ran);
            if (!effective.equals(first.point())) {
                first = withPoint(first, effective);
                history.set(history.size() - 1, first);
                journal.rewrite(history);
            }
        }
        tried.add(first.point());
        if (first.ok()) {
            journal.writeBest(optionsFor(first.point()));
        }
    }

    /** Why the search stops now, or null to go on. */
    private String stopReason() {
        if (history.size() >= settings.maxTrials()) {
            return "trial budget spent (" + settings.maxTrials() + " trials)";
        }
        if (sinceKept >= settings.patience() && lastKept != null) {
            return "patience: " + sinceKept + " trials in a row without an improvement above the noise";
        }
        if (elapsedSeconds() >= settings.totalTime().toSeconds()) {
            return "time budget spent (" + settings.totalTime().toMinutes() + " min)";
        }
        return null;
    }

    /**
     * The rules' strong proposals ({@link Hypotheses#STRONG}: the bottleneck's own signals) whose point ran once,
     * as a candidate that was not kept: one run, on a shared machine, can be the one a stall hit, and a
     * direction the stats still point to should not be closed by it. Each point gets one second look.
     */
    private List<Move> secondLooks() {
        Map<Map<String, Integer>, List<Experiment>> runs = new LinkedHashMap<>();
        for (Experiment e : history) {
            runs.computeIfAbsent(e.point(), k -> new ArrayList<>()).add(e);
        }
        Set<Map<String, Integer>> closed = new HashSet<>(tried);
        Map<Map<String, Integer>, Experiment> once = new LinkedHashMap<>();
        for (Map.Entry<Map<String, Integer>, List<Experiment>> r : runs.entrySet()) {
            Experiment e = r.getValue().getFirst();
            if (r.getValue().size() == 1 && e.phase().isCandidate() && e.ok() && !e.kept()) {
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
                        first.trial(), TuneReport.rate(first.samplesPerSecond()), m.hypothesis()), TrialPhase.SECOND_LOOK, m.priority()));
            }
        }
        return moves;
    }

    /**
     * Runs a candidate and decides. A gain far above the noise is kept at once ({@link TrialScores#clearGain}); a
     * smaller one that still beats {@code minGain} is confirmed: the best config runs again, then the candidate, so
     * that the two are compared side by side in time (a machine that got busier or quieter meanwhile moves both),
     * and the candidate is kept when the mean of its two runs beats the best config's recent mean by more than twice
     * the noise of that difference ({@link TrialScores#confirmedGain}).
     */
    private void evaluate(Move move) {
        LoaderOptions options = optionsFor(move.point());
        double score = incumbentScore();
        double clearGain = TrialScores.clearGain(settings.minGain(), scores.noiseOrZero(), scores.recentCount(incumbent.point()));
        TrialRun r = execute(options);
        double sps = r.samplesPerSecond();
        boolean clear = r.metrics() != null && sps > score * (1 + clearGain);
        Experiment first = record(incumbent.trial(), move.phase(), move.change(), move.hypothesis(), options,
                move.point(), r, clear, score * clearGain, clear ? sps : score);
        sinceReference++;
        if (clear) {
            becomeIncumbent(first);
            return;
        }
        boolean promising = r.metrics() != null && sps > score * (1 + settings.minGain());
        if (!promising || history.size() + 2 > settings.maxTrials()) {
            sinceKept++;
            return;
        }
        reference(String.format(Locale.ROOT, "the best config again, next to trial %d (%+.0f%% in one run, short of the"
                + " %.0f%% a single run needs): a side-by-side comparison", first.trial(), (sps / score - 1) * 100,
                clearGain * 100));
        double again = incumbentScore();
        double needGain = TrialScores.confirmedGain(settings.minGain(), scores.noiseOrZero(),
                scores.recentCount(incumbent.point()));
        TrialRun r2 = execute(options);
        double mean = r2.metrics() == null ? 0 : (sps + r2.samplesPerSecond()) / 2;
        boolean keep = r2.metrics() != null && mean > again * (1 + needGain);
        Experiment second = record(first.parent(), TrialPhase.CONFIRM, move.change(), String.format(Locale.ROOT,
                "trial %d again, after the best config's run: kept when the mean of the two beats the best config's recent"
                        + " mean by more than %.0f%%", first.trial(), needGain * 100), options, move.point(), r2, keep,
                again * needGain, keep ? mean : again);
        if (keep) {
            becomeIncumbent(second);
        } else {
            sinceKept++;
        }
    }

    private void becomeIncumbent(Experiment e) {
        incumbent = e;
        lastKept = e;
        sinceKept = 0;
        sinceReference = 0;
        journal.writeBest(optionsFor(e.point()));
    }

    /** Runs the incumbent again (drift, noise, a fresh score to compare with). */
    private void reference(String why) {
        LoaderOptions options = optionsFor(incumbent.point());
        TrialRun r = execute(options);
        record(incumbent.trial(), TrialPhase.REFERENCE, "none", why, options, incumbent.point(), r, false, 0,
                scores.recentScoreWith(incumbent.point(), r));
        sinceReference = 0;
    }

    private LoaderOptions optionsFor(Map<String, Integer> point) {
        return space.optionsAt(settings.startOptions(), point);
    }

    private TrialRun execute(LoaderOptions options) {
        TrialSpec spec = new TrialSpec(history.size(), options, settings.trialTimeout().toMillis());
        return TrialRun.execute(settings.runner(), spec, elapsedSeconds());
    }

    /** Appends a trial to the history and the journal, and tells the listener. */
    private Experiment record(int parent, TrialPhase phase, String change, String hypothesis, LoaderOptions options,
                              Map<String, Integer> point, TrialRun r, boolean kept, double threshold, double bestSoFar) {
        Experiment e = new Experiment(history.size(), parent, phase, change, hypothesis, new TreeMap<>(point),
                r.status(), r.message(), r.metrics(), kept && r.metrics() != null, round(bestSoFar), round(threshold),
                round(r.started()), round(r.duration()), TunerJournal.tree(options));
        history.add(e);
        tried.add(e.point());
        if (phase == TrialPhase.START) {
            lastKept = e;
            sinceKept = 0;
        }
        journal.append(e);
        settings.onTrial().accept(e);
        return e;
    }

    private Experiment withPoint(Experiment e, Map<String, Integer> point) {
        return new Experiment(e.trial(), e.parent(), e.phase(), e.change(), e.hypothesis(), new TreeMap<>(point),
                e.status(), e.message(), e.metrics(), e.kept(), e.bestSoFar(), e.threshold(), e.startedSeconds(),
                e.durationSeconds(), TunerJournal.tree(optionsFor(point)));
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
