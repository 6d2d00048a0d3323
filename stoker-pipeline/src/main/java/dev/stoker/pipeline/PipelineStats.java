package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.Json;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An immutable snapshot of a pipeline's counters, from {@link Pipeline#stats()}. The first entry of
 * {@code stages} is the source (kind {@code source}: busy = time inside the source iterator).
 *
 * @param elapsedMillis    time since the pipeline started
 * @param epoch            epoch the consumer is in
 * @param outputsPerSecond results delivered to the consumer per second, over the whole run
 * @param stages           the source, then every stage in pipeline order
 * @param sink             the consumer's view
 * @param failures         failed tasks in all stages
 * @param failuresByReason failure counts by stage and reason, e.g. {@code "decode: corrupt" -> 3}
 * @param verdict          the bottleneck, in one line
 * @param reconfigurations changes made while it ran ({@link Pipeline#reconfigure}: by hand or by an autotuner),
 *                         oldest first, the newest 1,000
 */
public record PipelineStats(long elapsedMillis, int epoch, double outputsPerSecond, List<StageStats> stages,
                            SinkStats sink, long failures, Map<String, Long> failuresByReason, Verdict verdict,
                            List<Reconfiguration> reconfigurations) {

    public PipelineStats {
        stages = List.copyOf(stages);
        failuresByReason = Map.copyOf(failuresByReason);
        reconfigurations = reconfigurations == null ? List.of() : List.copyOf(reconfigurations);   // null: stats from before they were kept
    }

    /** The named stage's stats. */
    public StageStats stage(String name) {
        return Json.stageNamed(stages, StageStats::name, name);
    }

    public String toJson() {
        return Json.write(this);
    }

    /** A compact fixed-width table, one row per stage, then the sink and the verdict. */
    public String toTable() {
        StringBuilder t = new StringBuilder();
        t.append(String.format(Locale.ROOT, "%-12s %-7s %4s %9s %9s %6s %9s %9s %5s %5s %5s  %s%n",
                "stage", "kind", "conc", "in", "out", "fail", "p50 ms", "p99 ms", "busy", "idle", "bp",
                "queue fill/empty/full"));
        for (StageStats s : stages) {
            QueueStats q = s.inputQueue();
            String queue = q.capacity() == 0 ? "-" : String.format(Locale.ROOT, "%3.0f%% %3.0f%% %3.0f%%  (%d/%d)",
                    q.meanFill() * 100, q.emptyFraction() * 100, q.fullFraction() * 100, q.size(), q.capacity());
            t.append(String.format(Locale.ROOT, "%-12s %-7s %4d %9d %9d %6d %9.2f %9.2f %4.0f%% %4.0f%% %4.0f%%  %s%n",
                    abbreviate(s.name(), 12), s.kind(), s.concurrency(), s.itemsIn(), s.itemsOut(), s.failures(),
                    s.taskTime().p50Micros() / 1000.0, s.taskTime().p99Micros() / 1000.0,
                    s.busyFraction() * 100, s.idleFraction() * 100, s.backPressuredFraction() * 100, queue));
        }
        t.append(String.format(Locale.ROOT,
                "sink: %d delivered (%.1f/s), data readiness %.1f%%, consumer waited %.2f s, buffer %d/%d%n",
                sink.delivered(), outputsPerSecond, sink.dataReadiness() * 100, sink.consumerWaitMillis() / 1000,
                sink.size(), sink.capacity()));
        if (failures > 0) {
            t.append("failures: ").append(failures).append(' ').append(failuresByReason).append('\n');
        }
        t.append(verdict.line()).append('\n');
        return t.toString();
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "~";
    }
}
