package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.Reconfiguration;
import dev.stoker.pipeline.Reconfiguration.Knob;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Changes a running pipeline's knobs: a stage's concurrency and input queue capacity, the sink's capacity.
 * Listeners see the config about to take effect first (what it sizes can grow before new workers need it);
 * each change is kept for the stats (the newest 1,000) and drawn in the trace.
 */
final class Reconfigurator {
    private static final int MAX_KEPT_RECONFIGURATIONS = 1_000;

    private final PipelineRuntime runtime;
    private final TraceRecorder trace;
    private final long startNanos;
    private final ArrayDeque<Reconfiguration> kept = new ArrayDeque<>();   // under itself
    private final List<Consumer<PipelineConfig>> listeners = new CopyOnWriteArrayList<>();

    Reconfigurator(PipelineRuntime runtime, TraceRecorder trace, long startNanos) {
        this.runtime = runtime;
        this.trace = trace;
        this.startNanos = startNanos;
    }

    void beforeReconfigure(Consumer<PipelineConfig> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Changes one stage's concurrency and/or input queue capacity (the non-null ones of {@code change}; its
     * other fields must be null or what the stage has), or with {@code stage} "sink" the sink's capacity.
     * Called under the runtime's lock.
     */
    void reconfigure(String stage, StageConfig change, String reason) {
        Objects.requireNonNull(change, "change");
        long start = System.nanoTime();
        if (stage.equals("sink")) {
            if (change.concurrency() != null || change.queueCapacity() == null) {
                throw new IllegalArgumentException("reconfigure sink: " + change + " (expected: a queueCapacity only)");
            }
            requireOpen();
            int from = runtime.sink.capacity();
            PipelineConfig next = runtime.effectiveConfig().withSinkCapacity(change.queueCapacity());
            listeners.forEach(l -> l.accept(next));
            runtime.sink.setCapacity(change.queueCapacity());
            runtime.effectiveConfig(next);
            record(start, "sink", Knob.QUEUE_CAPACITY, from, change.queueCapacity(), reason);
            return;
        }
        StageRunner runner = runner(stage);
        StageConfig current = runner.config;
        if (change.order() != null && change.order() != current.order()
                || change.virtualThreads() != null && !change.virtualThreads().equals(current.virtualThreads())
                || change.failureBudget() != null && !change.failureBudget().equals(current.failureBudget())
                || change.taskTimeoutMillis() != null && !change.taskTimeoutMillis().equals(current.taskTimeoutMillis())) {
            throw new IllegalArgumentException("reconfigure stage '" + stage + "': " + change
                    + " (expected: only concurrency and queueCapacity change while running)");
        }
        if (change.concurrency() != null && change.concurrency() > 1 && runner.function.kind().sequential()) {
            throw new IllegalArgumentException("stage '" + stage + "' concurrency: " + change.concurrency()
                    + " (expected: 1; a batch stage is sequential)");
        }
        requireOpen();
        PipelineConfig next = runtime.effectiveConfig().withStage(stage, current.overriddenBy(
                new StageConfig(change.concurrency(), change.queueCapacity(), null, null, null, null)));
        listeners.forEach(l -> l.accept(next));
        if (change.queueCapacity() != null) {
            runner.resizeQueue(change.queueCapacity());
            record(start, stage, Knob.QUEUE_CAPACITY, current.queueCapacity(), change.queueCapacity(), reason);
        }
        if (change.concurrency() != null) {
            runtime.startWorkers(runner.resize(change.concurrency()));
            record(start, stage, Knob.CONCURRENCY, current.concurrency(), change.concurrency(), reason);
        }
        runtime.effectiveConfig(runtime.effectiveConfig().withStage(stage, runner.config));
    }

    private StageRunner runner(String stage) {
        for (StageRunner s : runtime.stages) {
            if (s.name.equals(stage)) {
                return s;
            }
        }
        List<String> names = new ArrayList<>(runtime.stages.stream().map(s -> s.name).toList());
        if (runtime.effectiveConfig().stages().containsKey(stage)) {
            throw new UnsupportedOperationException("reconfigure: stage '" + stage
                    + "' runs in another process (expected: one of " + names + " or sink)");
        }
        throw new IllegalArgumentException("reconfigure: stage '" + stage + "' (expected one of " + names + " or sink)");
    }

    private void requireOpen() {
        if (runtime.isClosing()) {
            throw new IllegalStateException("reconfigure: the pipeline is closed");
        }
    }

    /** Keeps a change for the stats, and draws it in the trace: a counter, and a slice on the caller's track. */
    private void record(long changeNanos, String stage, Knob knob, int from, int to, String reason) {
        Reconfiguration r = new Reconfiguration(TimeUnit.NANOSECONDS.toMillis(changeNanos - startNanos), stage, knob,
                from, to, reason);
        synchronized (kept) {
            kept.addLast(r);
            if (kept.size() > MAX_KEPT_RECONFIGURATIONS) {
                kept.removeFirst();
            }
        }
        if (trace != null) {
            trace.counter((knob == Knob.CONCURRENCY ? "concurrency " : "capacity ") + stage, changeNanos, to);
            trace.slice(r.change(), "reconfigure", Thread.currentThread(), changeNanos,
                    Math.max(1_000, System.nanoTime() - changeNanos), -1, r.reason());
        }
    }

    List<Reconfiguration> reconfigurations() {
        synchronized (kept) {
            return List.copyOf(kept);
        }
    }
}
