package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.FailureBudgetExceededException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pipeline's failures: the first 10,000 kept whole, all counted by stage and reason, each checked against
 * its stage's budget and the pipeline's; the first budget exceeded ends the run with a message that names the
 * failing stages and the first failures of each.
 */
final class FailureLedger {
    private static final int MAX_KEPT_FAILURES = 10_000;
    /** The scope of the whole pipeline's budget ({@link FailureBudgetExceededException.Exceeded#scope()}). */
    static final String PIPELINE_SCOPE = "pipeline";

    private final PipelineRuntime runtime;
    private final FailureBudget pipelineBudget;
    private final List<Failure> failures = new ArrayList<>();   // under itself, as the counts
    private final Map<String, Long> byReason = new TreeMap<>();
    private long total;

    FailureLedger(PipelineRuntime runtime, FailureBudget pipelineBudget) {
        this.runtime = runtime;
        this.pipelineBudget = pipelineBudget;
    }

    /** Records a failed task of {@code stage} and ends the run if a budget is now exceeded. */
    void record(StageRunner stage, Envelope envelope, String item, Throwable cause) {
        Failure f = new Failure(stage.name, envelope.id, item, Failure.reasonOf(cause), cause, System.currentTimeMillis());
        long totalNow;
        synchronized (failures) {
            if (failures.size() < MAX_KEPT_FAILURES) {
                failures.add(f);
            }
            byReason.merge(stage.name + ": " + f.reason(), 1L, Long::sum);
            totalNow = ++total;
        }
        long stageFailures = stage.failures.sum();
        long stageItems = stage.itemsIn.sum();
        FailureBudget stageBudget = stage.config.failureBudget();
        if (stageBudget.isExceeded(stageFailures, stageItems)) {
            runtime.fail(budgetExceeded(stage.name, stage.name, stageFailures, stageItems, stageBudget));
        } else if (pipelineBudget.isExceeded(totalNow, runtime.source.items())) {
            runtime.fail(budgetExceeded(PIPELINE_SCOPE, stage.name, totalNow, runtime.source.items(), pipelineBudget));
        }
    }

    /** {@code scope}: the stage whose budget ran out, or {@link #PIPELINE_SCOPE}; {@code stage}: where the last failure was. */
    private FailureBudgetExceededException budgetExceeded(String scope, String stage, long failed, long items,
                                                          FailureBudget budget) {
        List<String> failing = new ArrayList<>();
        failing.add(stage);
        Map<String, Long> perStage = new LinkedHashMap<>();
        List<Failure> first = new ArrayList<>();
        Map<String, Integer> shown = new LinkedHashMap<>();
        synchronized (failures) {
            for (Failure f : failures) {
                perStage.merge(f.stage(), 1L, Long::sum);
                if (shown.merge(f.stage(), 1, Integer::sum) <= 3) {
                    first.add(f);
                }
            }
        }
        perStage.keySet().stream().filter(s -> !s.equals(stage)).forEach(failing::add);
        StringBuilder m = new StringBuilder();
        m.append("failure budget exceeded in ").append(scope.equals(PIPELINE_SCOPE) ? "the pipeline" : "stage '" + scope + "'")
                .append(": ").append(failed).append(" of ")
                .append(items).append(" items failed (budget: ").append(budget).append("). Failing stages: ");
        for (int i = 0; i < failing.size(); i++) {
            String s = failing.get(i);
            m.append(i == 0 ? "" : ", ").append(s).append(" (").append(perStage.getOrDefault(s, 0L)).append(" failed)");
        }
        m.append(". First failures:");
        for (Failure f : first) {
            m.append("\n  ").append(f.describe());
        }
        return new FailureBudgetExceededException(m.toString(),
                new FailureBudgetExceededException.Exceeded(scope, failed, items, budget), failing, first,
                first.isEmpty() ? null : first.getFirst().cause());
    }

    /** Every kept failure, the hosted stages' included, oldest first. */
    List<Failure> failures() {
        List<Failure> all;
        synchronized (failures) {
            all = new ArrayList<>(failures);
        }
        HostedStages hosted = runtime.hosted;   // their failures are merged in
        if (hosted != null) {
            all.addAll(hosted.failures());
            all.sort(Comparator.comparingLong(Failure::timestampMillis));
        }
        return List.copyOf(all);
    }

    /** How many failed, in all and by {@code stage: reason}, the hosted stages' included: read together. */
    record Counts(long total, Map<String, Long> byReason) { }

    Counts counts() {
        long n;
        Map<String, Long> counts;
        synchronized (failures) {
            n = total;
            counts = new TreeMap<>(byReason);
        }
        if (runtime.hosted != null) {
            for (Failure f : runtime.hosted.failures()) {
                n++;
                counts.merge(f.stage() + ": " + f.reason(), 1L, Long::sum);
            }
        }
        return new Counts(n, counts);
    }
}
