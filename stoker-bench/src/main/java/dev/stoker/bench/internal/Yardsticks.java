package dev.stoker.bench.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.ClipInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * What a run is measured against, after it, on its own {@link DeliveredClips}: the single-thread reference
 * (decode efficiency's yardstick), the machine's decode ceiling (the best efficiency it allows) and the first
 * batch's bound. Each is null where it was not measured.
 *
 * @param reference       the same clips on one thread, no pipeline
 * @param ceiling         the same clips on one thread per core at once
 * @param firstBatchBound the least time any schedule of the first batch's clips could take here
 */
public record Yardsticks(SingleThreadReference reference, DecodeCeiling ceiling, FirstBatchBound firstBatchBound) {
    /** Nothing measured (a shard run, or {@code --no-reference}). */
    public static final Yardsticks NONE = new Yardsticks(null, null, null);

    /**
     * Measures the reference (and with {@code withCeiling} the machine's ceiling, on {@code cores} threads) on
     * {@code clips}, saying so on {@code out} first (they take seconds); {@link #NONE} without delivered clips.
     *
     * @param firstBatchSeconds the run's first batch, from opening the loader
     */
    public static Yardsticks measure(DeliveredClips clips, double firstBatchSeconds, LoaderOptions options, int cores,
                                     boolean withCeiling, PrintWriter out) throws IOException, InterruptedException {
        List<ClipInfo> delivered = clips.onePerVideo();
        if (delivered.isEmpty()) {
            return NONE;
        }
        out.println("measuring the single-thread reference on the same clips...");
        out.flush();
        SingleThreadReference reference = SingleThreadReference.measure(delivered, options);
        DecodeCeiling ceiling = null;
        if (withCeiling) {
            out.printf(Locale.ROOT, "measuring the machine's ceiling: %d threads decoding the same clips at once...%n", cores);
            out.flush();
            ceiling = SingleThreadReference.measureCeiling(delivered, options, cores);
        }
        List<ClipInfo> firstBatch = clips.firstBatch();
        FirstBatchBound bound = firstBatch.isEmpty() ? null : FirstBatchBound.of(firstBatchSeconds, firstBatch,
                SingleThreadReference.eachAlone(firstBatch, options), cores);
        return new Yardsticks(reference, ceiling, bound);
    }

    /** Samples/s against {@code cores} times the single-thread rate; NaN without a reference. */
    public double decodeEfficiency(double samplesPerSecond, int cores) {
        return reference == null ? Double.NaN : samplesPerSecond / (cores * reference.clipsPerSecond());
    }

    /**
     * The reference's CPU time per clip against the pipeline's per sample over the steady state: how much work the
     * pipeline adds around decoding, whatever else the machine runs. NaN without either.
     */
    public double cpuEfficiency(double cpuSecondsPerSample) {
        return reference == null || Double.isNaN(cpuSecondsPerSample) ? Double.NaN
                : reference.cpuSecondsPerClip() / cpuSecondsPerSample;
    }
}
