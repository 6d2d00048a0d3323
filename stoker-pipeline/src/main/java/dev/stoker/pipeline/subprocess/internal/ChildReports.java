package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.QueueStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TaskTimeStats;
import dev.stoker.pipeline.TraceRecorder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the parent knows of the child's stages, as the pipeline shows it: their stats (from the child's latest
 * report; zeros before the first), their failures (reported by the child, or crashes the parent gave up on),
 * and their trace slices, each named {@code child:STAGE}.
 */
final class ChildReports {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");
    static final String PREFIX = "child:";
    private static final long CHILD_TID_OFFSET = 1L << 40;

    private final PipelineSpec spec;
    private final TraceRecorder trace;
    private final List<Failure> failures = new ArrayList<>();   // under itself
    private volatile List<StageStats> stageStats;

    ChildReports(PipelineSpec spec, TraceRecorder trace) {
        this.spec = spec;
        this.trace = trace;
        this.stageStats = placeholderStats(spec);
    }

    List<StageStats> stageStats() { return stageStats; }

    List<Failure> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Takes in one report from the child (its JSON). */
    void accept(String json) {
        Wire.Report report;
        try {
            report = Wire.JSON.readValue(json, Wire.Report.class);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "unreadable report from the child: " + e);
            return;
        }
        stageStats = report.stages().stream().map(s -> new StageStats(PREFIX + s.name(), s.kind(), s.concurrency(),
                s.itemsIn(), s.itemsOut(), s.failures(), s.dropped(), s.inFlight(), s.busyFraction(), s.idleFraction(),
                s.backPressuredFraction(), s.taskTime(), s.inputQueue())).toList();
        if (!report.failures().isEmpty()) {
            synchronized (failures) {
                for (Wire.ChildFailure f : report.failures()) {
                    failures.add(new Failure(PREFIX + f.stage(), f.inputId(), f.item(), f.reason(),
                            new ChildStageException(f.error(), f.message(), f.reason()), f.timestampMillis()));
                }
            }
        }
        if (trace != null) {
            String pid = String.valueOf(report.pid());
            for (Wire.ChildSlice s : report.slices()) {
                trace.foreignSlice(PREFIX + s.name(), s.category(), CHILD_TID_OFFSET + s.threadId(),
                        "child " + pid + " " + s.threadName(), s.startNanos(), s.durationNanos(), s.itemId(), s.detail());
            }
        }
    }

    /** Records an item the parent gave up on, as a failure of the child's stages. */
    void gaveUp(long inputId, String item, String reason, Throwable cause) {
        synchronized (failures) {
            failures.add(new Failure(PREFIX + stageNames(), inputId, item, reason, cause, System.currentTimeMillis()));
        }
    }

    /** A failure of the whole run, named after the child's stages. */
    PipelineFailedException runFailure(String message, Throwable cause) {
        return new PipelineFailedException(message, List.of(PREFIX + stageNames()), cause);
    }

    private String stageNames() {
        return String.join(",", spec.stages().stream().map(PipelineSpec.Stage::name).toList());
    }

    private static List<StageStats> placeholderStats(PipelineSpec spec) {
        List<StageStats> stats = new ArrayList<>();
        for (PipelineSpec.Stage s : spec.stages()) {
            Integer concurrency = spec.config().stage(s.name()).concurrency();
            stats.add(new StageStats(PREFIX + s.name(), s.kind().jsonName(), concurrency == null ? 1 : concurrency,
                    0, 0, 0, 0, 0, 0, 1, 0, new TaskTimeStats(0, 0, 0, 0, 0, 0), new QueueStats(0, 0, 0, 0, 0)));
        }
        return List.copyOf(stats);
    }
}
