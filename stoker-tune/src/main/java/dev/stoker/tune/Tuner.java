package dev.stoker.tune;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.TrialRunner;
import dev.stoker.tune.internal.TunerJournal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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
 * incumbent's score on the machine as it is now, the mean of its newest {@value TrialScores#RECENT_RUNS} runs (the
 * incumbent runs again after every {@value TunerSearch#REFERENCE_EVERY} candidates, a {@code reference} trial). A gain
 * above {@code max(minGain, 2 sigma sqrt(1 + 1/n))} (two standard deviations of the difference from the n
 * runs' mean) is kept at once; a smaller one above {@code minGain} is confirmed side by side: the incumbent
 * runs, then the candidate again ({@code confirm}), and the candidate is kept when the mean of its two runs
 * beats the incumbent's by more than two standard deviations of that difference. Otherwise the search
 * backs off to the incumbent. It stops after {@code maxTrials} trials, {@code patience} candidates in a row
 * without a kept one, the time budget, or when nothing is left to try. Every trial records its parent, its
 * change and the hypothesis behind it.
 *
 * <p>With a journal, every trial is appended to {@code experiments.jsonl} as it ends and {@code best.json}
 * is rewritten when the best changes; a search given a journal that exists continues where it stopped, from the same
 * start options (the knobs aside): {@link #run()} refuses other ones, whose trials would measure another workload.
 *
 * <pre>{@code
 * TuneResult r = Tuner.of(space, runner).startFrom(options).maxTrials(20).journal(dir).run();
 * Files.writeString(Path.of("best.json"), r.bestOptions().toJson());
 * }</pre>
 */
public final class Tuner {
    private final SearchSpace givenSpace;
    private final TrialRunner runner;
    private LoaderOptions startOptions = LoaderOptions.defaults();
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

    /** The options to start from (their pipeline config laid over the loader's defaults by the runner). */
    public Tuner startFrom(LoaderOptions options) {
        this.startOptions = Objects.requireNonNull(options, "options");
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
        return TunerJournal.read(dir);
    }

    /**
     * Runs the search (or continues it) until a budget ends it.
     *
     * @throws IllegalArgumentException when the journal holds a search that started from other options than
     *                                  {@link #startFrom} (the knobs aside), naming what differs
     */
    public TuneResult run() {
        Settings settings = new Settings(givenSpace, runner, startOptions, maxTrials, patience, repeats, minGain,
                trialTimeout, totalTime, cores, onTrial);
        return new TunerSearch(settings, new TunerJournal(journal)).run();
    }

    /** What {@link #run()} searches with: this builder's settings, fixed. */
    record Settings(SearchSpace space, TrialRunner runner, LoaderOptions startOptions,
                    int maxTrials, int patience, int repeats, double minGain, Duration trialTimeout, Duration totalTime,
                    int cores, Consumer<Experiment> onTrial) {
    }

    /** {@code value} as JSON (a side-by-side comparison, say). */
    public static String toJson(Object value) {
        return TunerJournal.toJson(value);
    }
}
