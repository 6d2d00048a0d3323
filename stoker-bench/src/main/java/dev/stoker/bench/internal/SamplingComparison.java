package dev.stoker.bench.internal;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.loader.ClipStartStats;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Workload;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code stoker bench --compare-sampling}: the same dataset loaded with the default clip sampling and with the
 * ways of decoding less, in one run, alternated (each round runs every mode once, the order reversed every other
 * round, so that a drift in the machine's load falls on all of them alike): samples/s, frames decoded a clip, the
 * decode lead of a clip's start, and the diversity given up for it: the starts a video has left under the mode
 * ({@link EligibleStarts}) and the distinct starts a video's delivered clips had. The process's CPU time a sample is
 * measured beside samples/s: on a machine other work shares, its ratio is the steadier one.
 */
public final class SamplingComparison {

    private SamplingComparison() {
    }

    /** A sampling mode: what it is called in the table and the options that do it. */
    public record Mode(String name, LoaderOptions options) {
    }

    /**
     * What one mode measured over every round.
     *
     * @param samplesPerSecond       the median over rounds of steady-state samples/s
     * @param roundSamplesPerSecond  each round's
     * @param speedup                the median over rounds of samples/s over the first mode's in the same round
     * @param cpuMillisPerSample     the median over rounds of the process's CPU time a steady-state sample
     * @param cpuSpeedup             the median over rounds of the first mode's CPU time a sample over this one's: what
     *                               the mode saves whatever else the machine runs (wall-clock rates depend on that)
     * @param decodedFramesPerClip   frames decoded a clip (output or not), over every round
     * @param outputFrames           frames a clip holds
     * @param meanLeadFrames         the mean decode lead of a delivered clip's start
     * @param fallbackClips          delivered clips over the decode budget
     * @param distinctStartsPerVideo distinct first frames among a video's delivered clips, over the videos delivered
     * @param eligible               the starts the mode leaves in the dataset's videos (an index scan)
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Row(String mode, double samplesPerSecond, double[] roundSamplesPerSecond, double speedup,
                      double cpuMillisPerSample, double cpuSpeedup, double decodedFramesPerClip, int outputFrames,
                      double meanLeadFrames, long fallbackClips,
                      double distinctStartsPerVideo, EligibleStarts eligible) {
    }

    /**
     * The default sampling of {@code base} and the others: decode budgets of 0 (keyframes) and 32 frames, SPDL's
     * example's workload, and 2 and 4 clips a video (cut from one forward decode).
     *
     * @throws IllegalArgumentException if {@code base} already has a decode budget or a clip window
     */
    public static List<Mode> modes(LoaderOptions base) {
        if (base.clip().maxLeadFrames() != ClipStartBudget.NONE || base.clip().window() != null
                || base.clip().starts().segments()) {
            throw new IllegalArgumentException("sampling: " + (base.clip().window() != null ? "clip window " + base.clip().window()
                    : base.clip().starts().segments() ? "starts " + base.clip().starts()
                    : "maxLeadFrames " + base.clip().maxLeadFrames()) + " (expected: the default sampling, which the"
                    + " comparison varies itself)");
        }
        LoaderOptions.Clip c = base.clip();
        return List.of(
                new Mode("default", base),
                new Mode("--max-lead-frames 0", base.toBuilder().maxLeadFrames(0).build()),
                new Mode("--max-lead-frames 32", base.toBuilder().maxLeadFrames(32).build()),
                new Mode("--workload " + Workload.SPDL_EXAMPLE.cliName(), Workload.SPDL_EXAMPLE.applyTo(base)),
                new Mode("--clips-per-video 2", base.toBuilder().clipStarts(c.starts(), 2, c.windowStepSeconds()).build()),
                new Mode("--clips-per-video 4", base.toBuilder().clipStarts(c.starts(), 4, c.windowStepSeconds()).build()));
    }

    /** Accumulates one mode's runs. */
    private static final class Tally {
        final double[] samplesPerSecond;
        final double[] cpuSecondsPerSample;
        long decodedFrames;
        long decodedClips;
        long clipsWithLead;
        long leadFrames;
        long fallbackClips;
        final Map<Path, Set<Double>> starts = new HashMap<>();

        Tally(int rounds) {
            samplesPerSecond = new double[rounds];
            cpuSecondsPerSample = new double[rounds];
        }
    }

    /**
     * Runs every mode {@code rounds} times for {@code batches} batches each, alternated, printing a line per run to
     * {@code out}; then scans up to {@code scanVideos} videos for each mode's eligible starts.
     */
    public static List<Row> run(Dataset dataset, List<Mode> modes, int rounds, long batches, int scanVideos,
                                PrintWriter out) throws IOException, InterruptedException {
        if (rounds < 1 || batches < 1) {
            throw new IllegalArgumentException("rounds: " + rounds + ", batches: " + batches + " (expected: 1+ each)");
        }
        List<Tally> tallies = new ArrayList<>();
        for (int m = 0; m < modes.size(); m++) {
            tallies.add(new Tally(rounds));
        }
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < modes.size(); k++) {
                int m = round % 2 == 0 ? k : modes.size() - 1 - k;
                Mode mode = modes.get(m);
                Tally t = tallies.get(m);
                SteadyStateRun run = SteadyStateRun.settings(batches)
                        .warmup(Math.min(batches - 1, SteadyStateRun.defaultWarmup(batches))).start();
                try (VideoLoader loader = VideoLoader.open(dataset, mode.options())) {
                    run.drive(loader, (index, batch) -> note(t.starts, batch));
                    t.decodedFrames += loader.decodedFrames();
                    t.decodedClips += loader.decodedClips();
                    ClipStartStats stats = loader.startStats();
                    t.clipsWithLead += stats.clipsWithLead();
                    t.leadFrames += stats.leadFrames();
                    t.fallbackClips += stats.fallbackClips();
                }
                SteadyStateRun.Figures f = run.finish();
                t.samplesPerSecond[round] = f.samplesPerSecond();
                t.cpuSecondsPerSample[round] = f.cpuSecondsPerSample();
                out.printf(Locale.ROOT, "  round %d  %-26s %8.1f samples/s  %6.1f CPU ms/sample%n", round + 1, mode.name(),
                        f.samplesPerSecond(), 1000 * f.cpuSecondsPerSample());
                out.flush();
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int m = 0; m < modes.size(); m++) {
            Tally t = tallies.get(m);
            double[] ratios = new double[rounds];
            double[] cpuRatios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = t.samplesPerSecond[r] / tallies.get(0).samplesPerSecond[r];
                cpuRatios[r] = tallies.get(0).cpuSecondsPerSample[r] / t.cpuSecondsPerSample[r];
            }
            double distinct = t.starts.values().stream().mapToInt(Set::size).average().orElse(Double.NaN);
            LoaderOptions options = modes.get(m).options();
            rows.add(new Row(modes.get(m).name(), median(t.samplesPerSecond), t.samplesPerSecond.clone(), median(ratios),
                    1000 * median(t.cpuSecondsPerSample), median(cpuRatios),
                    t.decodedClips == 0 ? Double.NaN : (double) t.decodedFrames / t.decodedClips, options.clip().frames(),
                    t.clipsWithLead == 0 ? Double.NaN : (double) t.leadFrames / t.clipsWithLead, t.fallbackClips, distinct,
                    EligibleStarts.scan(dataset, options, scanVideos)));
        }
        return rows;
    }

    private static void note(Map<Path, Set<Double>> starts, ClipBatch batch) {
        for (ClipInfo c : batch.clips()) {
            starts.computeIfAbsent(c.path(), p -> new HashSet<>()).add(c.frameTimestampsSeconds()[0]);
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The comparison as a table, one row a mode. */
    public static String table(List<Row> rows) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-26s %9s %9s %9s %9s %13s %9s %14s %7s %14s %8s%n",
                "mode", "samples/s", "x default", "CPU ms", "x CPU", "decoded/clip", "lead/clip", "eligible/video", "share",
                "distinct/video", "fallback"));
        for (Row r : rows) {
            EligibleStarts e = r.eligible();
            s.append(String.format(Locale.ROOT, "%-26s %9.1f %9.2f %9.1f %9.2f %13s %9.1f %14.1f %6.1f%% %14.1f %8d%n",
                    r.mode(), r.samplesPerSecond(), r.speedup(), r.cpuMillisPerSample(), r.cpuSpeedup(),
                    String.format(Locale.ROOT, "%.1f of %d", r.decodedFramesPerClip(), r.outputFrames()), r.meanLeadFrames(),
                    e.eligibleStartsPerVideo(), 100 * e.eligibleShare(), r.distinctStartsPerVideo(), r.fallbackClips()));
        }
        return s.toString();
    }
}
