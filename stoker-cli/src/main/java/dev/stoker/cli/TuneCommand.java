package dev.stoker.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.bench.internal.DecodeCeiling;
import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.StageOption;
import dev.stoker.loader.VideoStage;
import dev.stoker.observe.internal.DashboardAssets;
import dev.stoker.tune.internal.Ceiling;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.Knob;
import dev.stoker.tune.SearchSpace;
import dev.stoker.tune.internal.SideBySide;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialPhase;
import dev.stoker.tune.internal.TrialSpec;
import dev.stoker.tune.internal.TuneReport;
import dev.stoker.tune.internal.TunerJournal;
import dev.stoker.tune.TuneResult;
import dev.stoker.tune.Tuner;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code stoker tune}: finds the fastest loader configuration by experiment, each trial a {@code stoker bench} child process. */
@Command(name = "tune",
        header = "Find the fastest pipeline configuration by experiment.",
        mixinStandardHelpOptions = true,
        description = {
                "Finds the fastest configuration of the bench pipeline on DATASET by experiment. Each trial runs",
                "'stoker bench' in a child process (a hang is killed at --trial-seconds, a crash is a failed trial).",
                "The start config runs --repeats times to measure the noise; then the search reads each trial's",
                "per-stage stats and tries what they suggest (more workers for a saturated stage, fewer when task",
                "time rises with concurrency, a larger sink when the consumer waits, ...), keeps a change only when",
                "it beats the best by more than the noise, and sweeps the most sensitive knob when no rule is left.",
                "",
                "Writes to --out: experiments.jsonl (every trial: parent, change, hypothesis, metrics, kept),",
                "best.json (load it with 'stoker bench --config'), report.html, and trials/ (each trial's files).",
                "Run it again with the same --out to continue where it stopped: the same dataset, --bench-args and",
                "start options (the knobs the search moves aside), else it is refused: another --out starts anew.",
                "",
                "Before the search it measures the machine's decode ceiling: the start config's clips decoded on",
                "one thread per core at once, with no pipeline around them ('stoker bench --ceiling'). No config",
                "can pass it; the report draws it beside the trials, and a start config already near it leaves the",
                "search little to find on this machine (--no-decode-ceiling skips it: about two minutes on the demo",
                "dataset on 2 cores).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker tune --out tune/                        the demo dataset, defaults",
                "  stoker tune --out tune/ --start-all 8 --compare-default",
                "                                                 a bad start; vs default",
                "  stoker tune DATA --out tune/ --trials 30 --total-minutes 60",
                "  stoker tune DATA --out tune/ --config mine.json --space space.json",
                "  stoker tune DATA --out tune/ --headspace 120   a 120 ms step's ceiling too",
                "  stoker bench DATA --config tune/best.json      use what it found",
        })
final class TuneCommand extends Subcommand {
    // The loader flags of bench: the start document is the defaults, --config, --options and the flags given.
    @Mixin
    LoaderOptionsMixin loader;

    /** In --out: the dataset and bench arguments of the search there, checked when it is continued. */
    static final String SEARCH = "search.json";

    @Option(names = "--out", required = true, paramLabel = "DIR") Path out;
    @Option(names = "--space", paramLabel = "FILE") Path spaceFile;
    @Option(names = "--trials", defaultValue = "20") int trials;
    @Option(names = "--patience", defaultValue = "8") int patience;
    @Option(names = "--repeats", defaultValue = "3") int repeats;
    @Option(names = "--min-gain", defaultValue = "0.03") double minGain;
    @Option(names = "--trial-seconds", defaultValue = "300") long trialSeconds;
    @Option(names = "--total-minutes", defaultValue = "240") long totalMinutes;
    @Option(names = "--batches", defaultValue = "60") long batches;
    @Option(names = "--tune-batch") boolean tuneBatch;
    @Option(names = "--start-all", paramLabel = "N") Integer startAll;
    @Option(names = "--compare-default") boolean compareDefault;
    @Option(names = "--ceiling", paramLabel = "SAMPLES_PER_S") Double ceiling;

    @Option(names = "--decode-ceiling", negatable = true, defaultValue = "true", fallbackValue = "true")
    boolean decodeCeiling;

    @Option(names = "--headspace", paramLabel = "STEP_MS") Double headspaceStepMillis;
    @Option(names = "--bench-arg", paramLabel = "ARG") List<String> benchArgs = new ArrayList<>();

    /** The default space: every stage's concurrency, the main queues, the sink, decoder threads, fused convert. */
    static SearchSpace defaultSpace(int cores, boolean tuneBatch) {
        List<Knob> knobs = new ArrayList<>(List.of(
                stage(VideoStage.FETCH, StageOption.CONCURRENCY, 1, 16, Knob.Scale.LINEAR),
                stage(VideoStage.DEMUX, StageOption.CONCURRENCY, 1, 4, Knob.Scale.LINEAR),
                stage(VideoStage.DECODE, StageOption.CONCURRENCY, 1, Math.max(4, 2 * cores), Knob.Scale.LINEAR),
                stage(VideoStage.CONVERT, StageOption.CONCURRENCY, 1, 4, Knob.Scale.LINEAR),
                stage(VideoStage.COLLATE, StageOption.CONCURRENCY, 1, 2, Knob.Scale.LINEAR),
                stage(VideoStage.DECODE, StageOption.QUEUE_CAPACITY, 1, 64, Knob.Scale.LOG),
                stage(VideoStage.CONVERT, StageOption.QUEUE_CAPACITY, 1, 64, Knob.Scale.LOG),
                stage(VideoStage.BATCH, StageOption.QUEUE_CAPACITY, 1, 64, Knob.Scale.LOG),
                Knob.log(LoaderOption.SINK_CAPACITY.path(), 1, 16),
                Knob.linear(LoaderOption.DECODER_THREADS.path(), 1, Math.max(2, cores)),
                Knob.flag(LoaderOption.FUSED_CONVERT.path())));
        if (tuneBatch) {
            knobs.add(Knob.log(LoaderOption.BATCH_SIZE.path(), 4, 32));
        }
        return new SearchSpace(knobs);
    }

    private static Knob stage(VideoStage stage, StageOption setting, int min, int max, Knob.Scale scale) {
        return Knob.ofStage(stage.stageName(), setting, min, max, scale);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter w = out();
        if (trials < 1 || patience < 1 || repeats < 1 || batches < 1 || trialSeconds < 1 || totalMinutes < 1) {
            throw usageError("--trials, --patience, --repeats, --batches, --trial-seconds and "
                    + "--total-minutes: 1+ each");
        }
        // Before any trial: these are read only after the search, where a bad one threw away the hours it took.
        if (!(minGain >= 0 && Double.isFinite(minGain))) {
            throw usageError("--min-gain: " + minGain + " (expected: a share of 0 or more, e.g. 0.03 for 3%)");
        }
        if (ceiling != null && !(ceiling > 0 && Double.isFinite(ceiling))) {
            throw usageError("--ceiling: " + ceiling + " (expected: a throughput above 0 samples/s)");
        }
        if (headspaceStepMillis != null && !(headspaceStepMillis > 0 && Double.isFinite(headspaceStepMillis))) {
            throw usageError("--headspace: " + headspaceStepMillis + " (expected: a step above 0 ms)");
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw usageError("--out: " + out + " is a file (expected: a folder, made if missing)");
        }
        int cores = Runtime.getRuntime().availableProcessors();
        SearchSpace space;
        LoaderOptions start;
        try {
            space = spaceFile == null ? defaultSpace(cores, tuneBatch) : SearchSpace.read(spaceFile);
            start = loader.loaderOptions();   // a bad value is a usage error now, not in every trial
            if (startAll != null) {
                if (loader.config != null || startAll < 1) {
                    throw new IllegalArgumentException("--start-all " + startAll + " (expected: 1+, and no --config)");
                }
                for (VideoStage stage : VideoStage.values()) {
                    if (stage != VideoStage.BATCH) {   // a batch stage is sequential
                        start = start.with(StageOption.CONCURRENCY.pathFor(stage.stageName()), startAll);
                    }
                }
            }
        } catch (RuntimeException e) {
            throw usageError((spaceFile != null ? "--space: " : "") + e.getMessage());
        }
        Path root = loader.datasetRoot(w);
        if (!dev.stoker.store.ShardDataset.isShardDataset(root)) {
            LoaderOptionsMixin.openDataset(spec, root);   // a bad DATASET is a usage error now, not in every trial
        }
        makeOut();
        List<String> extra = new ArrayList<>();
        for (String a : benchArgs) {
            int eq = a.indexOf('=', 2);
            if (a.startsWith("--") && eq > 0) {
                extra.add(a.substring(0, eq));
                extra.add(a.substring(eq + 1));
            } else {
                extra.add(a);
            }
        }
        int done = continuable(space, start, root, extra);
        BenchTrialRunner runner = new BenchTrialRunner(root, batches, extra, out.resolve("trials"));
        // Stopped (Ctrl-C), the tuner says what it keeps; the trial's child is killed by the runner's own hook.
        try (ShutdownHook stopped = ShutdownHook.add("stoker-tune-stopped", this::sayStopped)) {
            return tune(w, done, root, runner, start, space, extra, cores);
        }
    }

    private Integer tune(PrintWriter w, int done, Path root, BenchTrialRunner runner, LoaderOptions start, SearchSpace space,
                         List<String> extra, int cores) throws Exception {
        if (done > 0) {
            w.printf(Locale.ROOT, "continuing the search in %s: %d trials done%n", out, done);
        } else {
            w.printf(Locale.ROOT, "tuning the bench pipeline on %s: %d trials at most, %d batches each; results in %s%n", root,
                    trials, batches, out);
        }
        w.flush();
        List<Ceiling> ceilings = new ArrayList<>();
        if (decodeCeiling) {
            // Three times a trial's time: the run, the single-thread reference and the alternated ceiling passes.
            TrialSpec ceilingRun = new TrialSpec(-3, start, trialSeconds * 1000 * 3);
            DecodeCeiling.measureOrRead(() -> runner.run(ceilingRun, List.of("--ceiling")).bench(), out, w)
                    .ifPresent(ceilings::add);
        }
        TuneResult result = Tuner.of(space, runner)
                .startFrom(start)
                .maxTrials(trials).patience(patience).repeats(repeats).minGain(minGain)
                .trialTimeout(Duration.ofSeconds(trialSeconds)).totalTime(Duration.ofMinutes(totalMinutes))
                .cores(cores)
                .journal(out)
                .onTrial(e -> {
                    w.println(line(e));
                    if (e.phase() == TrialPhase.START && e.ok()) {
                        failedSamples(runner, e.trial()).ifPresent(w::println);
                    }
                    w.flush();
                })
                .run();
        if (!result.best().ok()) {
            w.printf(Locale.ROOT, "%nno trial ran: %s; nothing to recommend (see %s)%n", result.stopReason(),
                    out.resolve("experiments.jsonl"));
            w.flush();
            return ExitCode.SOFTWARE;
        }
        SideBySide compared = null;
        if (compareDefault) {
            List<SideBySide.Candidate> configs = new ArrayList<>();
            configs.add(new SideBySide.Candidate("start", start));
            if (!start.equals(LoaderOptions.defaults())) {
                configs.add(new SideBySide.Candidate("default", LoaderOptions.defaults()));
            }
            configs.add(new SideBySide.Candidate("best", result.bestOptions()));
            if (result.bestIsStart()) {
                w.println("(nothing beat the start config above the noise: 'best' is the start config, its effective settings"
                        + " spelled out; the two differ only by noise)");
            }
            w.printf(Locale.ROOT, "running %s side by side, %d rounds...%n", configs.stream().map(SideBySide.Candidate::name).toList(),
                    repeats);
            w.flush();
            compared = SideBySide.run(runner, configs, repeats, trialSeconds * 1000, line -> {
                w.println(line);
                w.flush();
            });
            Files.writeString(out.resolve("side-by-side.json"), Tuner.toJson(compared));
        }
        Double ceilingNow = ceiling;   // the headspace ceiling, given or measured below
        if (headspaceStepMillis != null) {
            w.printf(Locale.ROOT, "measuring the headspace ceiling with the best config (a %.0f ms step)...%n", headspaceStepMillis);
            w.flush();
            try {
                BenchTrialRunner.Outcome o = runner.run(new TrialSpec(-2, result.bestOptions(), trialSeconds * 1000 * 3),
                        List.of("--no-reference", "--headspace", Double.toString(headspaceStepMillis)));
                JsonNode c = o.bench().path("headspace").path("ceiling_samples_per_second");
                if (c.isNumber()) {
                    ceilingNow = c.asDouble();
                }
            } catch (Exception e) {
                w.println("the headspace run failed: " + e.getMessage());
            }
        }
        if (ceilingNow != null) {
            ceilings.addFirst(new Ceiling("headspace ceiling", ceilingNow, headspaceStepMillis != null
                    ? String.format(Locale.ROOT, "the best config feeding a %.0f ms step", headspaceStepMillis) : "given with --ceiling"));
        }
        TuneReport.write(out.resolve("report.html"), result, ceilings, compared, DashboardAssets.text(DashboardAssets.CHART_JS));
        String command = String.join(" ", List.of("stoker bench", root.toString(), "--config", out.resolve("best.json").toString()))
                + (extra.isEmpty() ? "" : " " + String.join(" ", extra));
        Files.writeString(out.resolve("best-command.txt"), command + "\n");
        w.println();
        w.println(summary(result));
        for (Ceiling c : ceilings) {
            w.printf(Locale.ROOT, "%s: %.1f samples/s; the start config runs at %.2f of it, the best at %.2f%n", c.name(),
                    c.samplesPerSecond(), c.shareOf(result.startMean()), c.shareOf(result.bestMean()));
        }
        if (compared != null) {
            for (SideBySide.Entry e : compared.entries()) {
                w.printf(Locale.ROOT, "side by side: %-8s %6.1f samples/s (σ %s)%s%s%n", e.name(), e.mean(),
                        Double.isNaN(e.relativeSd()) ? "-" : String.format(Locale.ROOT, "%.1f%%", e.relativeSd() * 100),
                        e.name().equals("start") ? "" : "; vs start " + compared.ratio(e.name(), "start"),
                        e.name().equals("best") && compared.entries().stream().anyMatch(x -> x.name().equals("default"))
                                ? "; vs default " + compared.ratio("best", "default") : "");
            }
        }
        w.printf(Locale.ROOT, "wrote %s, %s and %s%nuse it: %s%n", out.resolve("experiments.jsonl"), out.resolve("best.json"),
                out.resolve("report.html"), command);
        w.flush();
        return ExitCode.OK;
    }

    /**
     * The summary line: the best config against the start, both means over all of each config's runs. When nothing
     * beat the start, one figure (a ratio of the start to itself, from two sets of its runs, read as a change).
     */
    static String summary(TuneResult result) {
        String noise = Double.isNaN(result.noise()) ? "unknown" : String.format(Locale.ROOT, "%.1f%%", result.noise() * 100);
        if (result.bestIsStart()) {
            long runs = result.experiments().stream().filter(e -> e.ok() && e.point().equals(result.start().point())).count();
            return String.format(Locale.ROOT, "best: the start config, %.1f samples/s (trial %d, %s): nothing beat the start"
                    + " config above the noise; noise of one run %s; stopped: %s", result.bestMean(), result.best().trial(),
                    runs == 1 ? "one run" : "mean of its " + runs + " runs", noise, result.stopReason());
        }
        return String.format(Locale.ROOT, "best: %.1f samples/s (trial %d, mean of its runs) vs %.1f for the start config (mean"
                + " of its runs): %.2fx; noise of one run %s; stopped: %s", result.bestMean(), result.best().trial(),
                result.startMean(), result.speedup(), noise, result.stopReason());
    }

    /**
     * Makes {@code --out}; a path that cannot be one is a usage error naming why (the bare path was all it said).
     */
    private void makeOut() {
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw usageError("--out: " + out + " (expected: a folder, made if missing; " + why(e) + ")");
        }
        if (!Files.isWritable(out)) {
            throw usageError("--out: " + out + " (expected: a folder it can write to; it is read-only here)");
        }
    }

    /** Why a folder could not be made, in words: the exception's reason, or its kind ("no such file", "access denied"). */
    static String why(IOException e) {
        if (e instanceof FileAlreadyExistsException f) {
            return (f.getFile() == null ? "a file" : f.getFile() + " is a file") + " in the way";
        }
        if (e instanceof FileSystemException f) {
            // The JDK's message is the bare path for most of them (NoSuchFileException: /proc/x); its kind says why.
            String reason = f.getReason() != null ? f.getReason()
                    : f.getClass().getSimpleName().replace("Exception", "").replaceAll("([a-z])([A-Z])", "$1 $2");
            return (f.getFile() == null ? "" : f.getFile() + ": ") + reason.toLowerCase(Locale.ROOT);
        }
        return CliErrors.describe(e);
    }

    /**
     * The trials done in {@code --out}, after checking that a search there measured the workload this one would: the
     * same start options (less the knobs the search moves), dataset and {@code --bench-arg}s. Another workload's trials
     * (16 frames against 4) would be compared with this one's as if the config made the difference. A new search
     * records its dataset and bench arguments in {@code search.json}; the options are in each trial's journal line.
     */
    private int continuable(SearchSpace space, LoaderOptions start, Path root, List<String> extra) throws IOException {
        List<Experiment> history = Tuner.readJournal(out);
        Path record = out.resolve(SEARCH);
        String dataset = realPath(root).toString();
        if (!history.isEmpty()) {
            List<String> differences = TunerJournal.startDifferences(history, space.knobs().stream().map(Knob::name).toList(), start);
            if (!differences.isEmpty()) {
                int shown = Math.min(6, differences.size());
                throw usageError("--out: " + out + " holds a search that started from other loader options (there → now: "
                        + String.join("; ", differences.subList(0, shown))
                        + (differences.size() > shown ? "; " + (differences.size() - shown) + " more" : "")
                        + ") (expected: another --out for a new search, or the same options to continue that one)");
            }
            if (Files.exists(record)) {
                JsonNode then;
                try {
                    then = new ObjectMapper().readTree(record.toFile());
                } catch (IOException e) {
                    then = null;
                }
                if (then == null || !then.path("dataset").isTextual()) {
                    throw usageError("--out: " + record + " is no search record of stoker tune (expected: the"
                            + " {\"dataset\", \"bench_args\"} it writes; another --out for a new search)");
                }
                if (!then.path("dataset").asText().equals(dataset)) {
                    throw usageError("--out: " + out + " holds a search on " + then.path("dataset").asText() + ", not "
                            + dataset + " (expected: another --out for a new search, or the same dataset to continue that one)");
                }
                List<String> args = new ArrayList<>();
                then.path("bench_args").forEach(a -> args.add(a.asText()));
                if (!args.equals(extra)) {
                    throw usageError("--out: " + out + " holds a search with --bench-arg " + args + ", not " + extra
                            + " (expected: another --out for a new search, or the same arguments to continue that one)");
                }
            }
        }
        // A new search (no trial ended yet, whatever an earlier start left here), or one an older version began (from
        // now on checked too).
        if (history.isEmpty() || !Files.exists(record)) {
            Map<String, Object> what = new LinkedHashMap<>();
            what.put("dataset", dataset);
            what.put("bench_args", extra);
            Files.writeString(record, Tuner.toJson(what) + "\n");
        }
        return history.size();
    }

    /** {@code path} as the file system names it: another spelling of the same folder (a link, {@code ./}) is the same. */
    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }

    /**
     * The line saying how many samples failed in {@code trial} (bench skips them and goes on): every trial skips the
     * same ones, so the search measures the dataset less them, which a user should know. Empty when none failed.
     */
    static Optional<String> failedSamples(BenchTrialRunner runner, int trial) {
        Path json = runner.benchJson(trial);
        try {
            JsonNode failures = new ObjectMapper().readTree(json.toFile()).path("failures");
            if (failures.isEmpty()) {
                return Optional.empty();
            }
            Set<String> files = new TreeSet<>();
            failures.forEach(f -> files.add(f.path("path").asText()));
            return Optional.of(String.format(Locale.ROOT, "  %d sample%s failed in trial %d (%d file%s) and %s skipped: the"
                            + " trials measure the dataset without them; which and why: \"failures\" in %s, and %s",
                    failures.size(), failures.size() == 1 ? "" : "s", trial, files.size(), files.size() == 1 ? "" : "s",
                    failures.size() == 1 ? "was" : "were", json, runner.log(trial)));
        } catch (IOException e) {
            return Optional.empty();   // the trial's numbers were read from it; a file gone since is no failure count
        }
    }

    /** Shutdown hook: the search was stopped (Ctrl-C); says what it keeps and how to continue it. */
    private void sayStopped() {
        int trials;
        try {
            trials = Tuner.readJournal(out).size();
        } catch (RuntimeException e) {
            trials = -1;
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println(stoppedLine(out, trials, Files.exists(out.resolve("best.json"))));
        err.flush();
    }

    static String stoppedLine(Path out, int trials, boolean best) {
        if (trials == 0) {
            return "stoker tune: stopped before a trial ended; nothing kept in " + out
                    + " (the same command starts the search again)";
        }
        return String.format(Locale.ROOT, "stoker tune: stopped; kept: %s, %s in %s; the same command continues the search",
                best ? "the best config so far in " + out.resolve("best.json") : "no best config yet",
                trials < 0 ? "the trials that ended" : trials + (trials == 1 ? " trial" : " trials"), out.resolve("experiments.jsonl"));
    }

    private static String line(Experiment e) {
        TrialMetrics m = e.metrics();
        return String.format(Locale.ROOT, "trial %2d <- %2s %-10s %-30s %9s %-5s %s", e.trial(), e.parent() < 0 ? "" : e.parent(),
                e.phase(), e.change() == null ? "" : e.change(),
                e.ok() ? String.format(Locale.ROOT, "%.1f/s", e.samplesPerSecond()) : e.status(), e.kept() ? "kept" : "",
                e.ok() ? (m == null ? "" : m.verdict()) : e.message());
    }
}
