package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An immutable snapshot of a pipeline's counters, from {@link Pipeline#stats()}. The first entry of
 * {@code stages} is the source (kind {@code source}: busy = time inside the source iterator).
 *
 * @param elapsedMillis    time since the pipeline started (to the end of the stream, once the consumer has seen it)
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

    /**
     * What the pipeline did between {@code earlier}, a snapshot of the same pipeline, and this one: counts are
     * differences, each stage's busy, idle and back-pressured shares and the consumer's waiting are the window's, and
     * the verdict is judged on them (without the CPUs' use, which a snapshot does not keep). A phase's verdict,
     * apart from what came before it: a loader that filled a cache flat out and then kept up with training steps
     * reads as saturated over the whole run and as ahead of its consumer over the steps. Task times, queue fills and
     * reconfigurations stay this snapshot's (since the start). This snapshot itself when {@code earlier} is null or
     * not older.
     *
     * <p>A stage's shares are weighted by the elapsed time, so they hold while its concurrency is what it was at
     * {@code earlier}.
     */
    public PipelineStats since(PipelineStats earlier) {
        if (earlier == null || earlier.elapsedMillis >= elapsedMillis) {
            return this;
        }
        double window = elapsedMillis - earlier.elapsedMillis;
        List<StageStats> windowed = new ArrayList<>(stages.size());
        for (int i = 0; i < stages.size(); i++) {
            StageStats now = stages.get(i);
            StageStats then = i < earlier.stages.size() && earlier.stages.get(i).name().equals(now.name())
                    ? earlier.stages.get(i) : null;
            windowed.add(then == null ? now : now.since(then, earlier.elapsedMillis, elapsedMillis));
        }
        double waitedMillis = sink.consumerWaitMillis() - earlier.sink.consumerWaitMillis();
        SinkStats s = new SinkStats(sink.capacity(), sink.size(), sink.delivered() - earlier.sink.delivered(),
                sink.dataReadinessSince(earlier.sink), waitedMillis, Math.clamp(waitedMillis / window, 0.0, 1.0),
                sink.meanFill());
        Map<String, Long> failed = new HashMap<>();
        failuresByReason.forEach((reason, n) -> {
            long since = n - earlier.failuresByReason.getOrDefault(reason, 0L);
            if (since > 0) {
                failed.put(reason, since);
            }
        });
        return new PipelineStats(elapsedMillis, epoch, s.delivered() * 1000.0 / window, windowed, s,
                failures - earlier.failures, failed, BottleneckAnalysis.judge(windowed, s), reconfigurations);
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "~";
    }
}
