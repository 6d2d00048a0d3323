package dev.stoker.bench.internal;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.tune.HeadspaceResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code stoker bench} measured; serialised as its {@code --json} (snake_case names: scripts and
 * the tuner read them).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BenchResult(
        String dataset,
        int videos,
        int cores,
        long batches,
        long samples,
        double elapsedSeconds,
        double samplesPerSecond,
        double framesPerSecond,
        double firstBatchSeconds,
        double decodedFramesPerClip,
        Double singleThreadClipsPerSecond,
        double decodeEfficiency,
        LoaderOptions options,
        PipelineConfig config,
        PipelineStats stats,
        List<FailureRecord> failures,
        Map<String, Long> failuresByReason,
        Memory memory,
        HeadspaceResult headspace,
        double cpuSecondsPerSample,
        double cpuEfficiency,
        double[] loadAverage,
        DecodeCeiling machineCeiling,
        FirstBatchBound firstBatchBound,
        ClipStartReport clipStarts,
        long steadySamples,
        double steadySeconds) {

    /** A result without its clip starts' costs. */
    public BenchResult(String dataset, int videos, int cores, long batches, long samples, double elapsedSeconds,
                       double samplesPerSecond, double framesPerSecond, double firstBatchSeconds, double decodedFramesPerClip,
                       Double singleThreadClipsPerSecond, double decodeEfficiency, LoaderOptions options,
                       PipelineConfig config, PipelineStats stats, List<FailureRecord> failures,
                       Map<String, Long> failuresByReason, Memory memory, HeadspaceResult headspace,
                       double cpuSecondsPerSample, double cpuEfficiency, double[] loadAverage, DecodeCeiling machineCeiling,
                       FirstBatchBound firstBatchBound) {
        this(dataset, videos, cores, batches, samples, elapsedSeconds, samplesPerSecond, framesPerSecond, firstBatchSeconds,
                decodedFramesPerClip, singleThreadClipsPerSecond, decodeEfficiency, options, config, stats, failures,
                failuresByReason, memory, headspace, cpuSecondsPerSample, cpuEfficiency, loadAverage, machineCeiling,
                firstBatchBound, null, 0, 0);
    }

    /**
     * What a run of {@code cores} cores measured: its figures (samples/s and CPU over the steady state), the frames
     * and clips its loader decoded, its options, config, stats and failures, memory over the run, and what it was
     * measured against afterwards.
     *
     * @param loadAverage the system's load average at the start and the end, or null
     * @param headspace   the headspace analysis, or null
     */
    public static BenchResult of(String dataset, int videos, int cores, SteadyStateRun.Figures run, long decodedFrames,
                                 long decodedClips, LoaderOptions options, PipelineConfig config, PipelineStats stats,
                                 List<Failure> failures, Memory memory, Yardsticks yardsticks, HeadspaceResult headspace,
                                 double[] loadAverage) {
        return of(dataset, videos, cores, run, decodedFrames, decodedClips, options, config, stats, failures, memory,
                yardsticks, headspace, loadAverage, null);
    }

    /** {@link #of(String, int, int, SteadyStateRun.Figures, long, long, LoaderOptions, PipelineConfig, PipelineStats,
     * List, Memory, Yardsticks, HeadspaceResult, double[])} with what the clips' starts cost (nullable). */
    public static BenchResult of(String dataset, int videos, int cores, SteadyStateRun.Figures run, long decodedFrames,
                                 long decodedClips, LoaderOptions options, PipelineConfig config, PipelineStats stats,
                                 List<Failure> failures, Memory memory, Yardsticks yardsticks, HeadspaceResult headspace,
                                 double[] loadAverage, ClipStartReport clipStarts) {
        double samplesPerSecond = run.samplesPerSecond();
        SingleThreadReference reference = yardsticks.reference();
        return new BenchResult(dataset, videos, cores, run.batches(), run.samples(), run.seconds(), samplesPerSecond,
                samplesPerSecond * options.clip().frames(), run.firstBatchSeconds(),
                decodedClips == 0 ? 0 : (double) decodedFrames / decodedClips,
                reference == null ? null : reference.clipsPerSecond(), yardsticks.decodeEfficiency(samplesPerSecond, cores),
                options, config, stats, failures.stream().map(FailureRecord::of).toList(), stats.failuresByReason(), memory,
                headspace, run.cpuSecondsPerSample(), yardsticks.cpuEfficiency(run.cpuSecondsPerSample()), loadAverage,
                yardsticks.ceiling(), yardsticks.firstBatchBound(), clipStarts,
                run.warmedUp() ? run.steadySamples() : 0, run.warmedUp() ? run.steadySeconds() : 0);
    }

    /** One failed sample: which file, which stage, why. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record FailureRecord(String path, String stage, String reason, String message) {
        public static FailureRecord of(Failure f) {
            return new FailureRecord(f.item(), f.stage(), f.reason(), String.valueOf(f.cause().getMessage()));
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Memory(MemoryProbe start, MemoryProbe afterWarmup, MemoryProbe end, MemoryProbe max,
                         List<MemoryTimeline.Point> timeline) { }

    /** Cores' worth of the process's CPU time over the steady state (NaN when not known). */
    private double cpuCores() {
        return cpuSecondsPerSample * samplesPerSecond;
    }

    private double singleThreadCpuMillis() {
        return cpuEfficiency > 0 ? cpuSecondsPerSample * cpuEfficiency * 1000 : Double.NaN;
    }

    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append(stats.toTable());
        if (steadySamples > 0 && steadySeconds > 0) {
            s.append(String.format(Locale.ROOT, "%nsamples/s        %10.1f   (%d samples in %.1f s of steady state after"
                    + " warm-up; the whole run %d samples in %d batches, %.1f s)%n", samplesPerSecond, steadySamples,
                    steadySeconds, samples, batches, elapsedSeconds));
        } else {
            s.append(String.format(Locale.ROOT, "%nsamples/s        %10.1f   (%d samples in %d batches, %.1f s: the whole"
                    + " run, too short for a steady state)%n", samplesPerSecond, samples, batches, elapsedSeconds));
        }
        s.append(String.format(Locale.ROOT, "frames/s         %10.1f%n", framesPerSecond));
        s.append(String.format(Locale.ROOT, "first batch      %10.2f s%s%n", firstBatchSeconds,
                firstBatchBound == null ? "" : "   (" + firstBatchBound.explanation() + ")"));
        s.append(String.format(Locale.ROOT, "decoded/clip     %10.1f frames for %d output frames%n", decodedFramesPerClip, options.clip().frames()));
        if (!Double.isNaN(cpuSecondsPerSample)) {
            // Beside the verdict: a run near all its cores is CPU-bound whatever the stage table says.
            s.append(String.format(Locale.ROOT, "cpu              %10.2f of %d cores (this process's CPU time over the steady state)%n",
                    cpuCores(), cores));
        }
        if (clipStarts != null) {
            s.append(clipStarts.summary());
        }
        if (singleThreadClipsPerSecond != null) {
            s.append(String.format(Locale.ROOT, "single thread    %10.1f clips/s (same clips, no pipeline)%n", singleThreadClipsPerSecond));
            s.append(String.format(Locale.ROOT, "decode efficiency %9.2f   = samples/s / (%d cores x single-thread clips/s)%n",
                    decodeEfficiency, cores));
            if (Double.isNaN(cpuEfficiency)) {
                // No steady-state CPU reading (a run of a few batches): a ratio of NaNs says nothing.
                s.append(String.format(Locale.ROOT, "cpu efficiency          -   (no CPU per sample: the steady state was"
                        + " too short to read; give more --batches)%n"));
            } else {
                s.append(String.format(Locale.ROOT, "cpu efficiency   %10.2f   = single-thread CPU per clip / pipeline CPU"
                        + " per sample (%.1f / %.1f ms)%n", cpuEfficiency, singleThreadCpuMillis(), cpuSecondsPerSample * 1000));
            }
            if (machineCeiling != null) {
                s.append(String.format(Locale.ROOT, "machine ceiling  %10.2f   = %d threads decoding the same clips independently"
                        + " (%.1f clips/s) / (%d x one alone, %.1f clips/s): no loader's decode efficiency goes higher here%n",
                        machineCeiling.ceiling(), machineCeiling.threads(), machineCeiling.parallelClipsPerSecond(),
                        machineCeiling.threads(), machineCeiling.singleClipsPerSecond()));
            }
            if (loadAverage != null && loadAverage.length == 2 && Math.max(loadAverage[0], loadAverage[1]) > cores + 1) {
                s.append(String.format(Locale.ROOT, "warning: the load average was %.1f -> %.1f on %d cores: other processes took CPU,"
                        + " so wall-clock figures are low; cpu efficiency is not affected%n", loadAverage[0], loadAverage[1], cores));
            }
        }
        if (!failures.isEmpty()) {
            s.append("failures by reason: ").append(failuresByReason).append('\n');
            failures.stream().limit(10).forEach(f -> s.append("  ").append(f.stage()).append(' ').append(f.reason())
                    .append(' ').append(f.path()).append(": ").append(f.message()).append('\n'));
            if (failures.size() > 10) {
                s.append("  ... ").append(failures.size() - 10).append(" more (see --json)\n");
            }
        }
        if (headspace != null) {
            s.append("headspace        ").append(headspace.summary()).append('\n');
        }
        s.append(MemoryTimeline.drift(memory));
        return s.toString();
    }
}
