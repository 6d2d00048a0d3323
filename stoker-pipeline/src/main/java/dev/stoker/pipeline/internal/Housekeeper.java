package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.StallReport;
import dev.stoker.pipeline.TraceRecorder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The housekeeper thread's work, every 10 ms: interrupts tasks past their timeout, samples every worker's
 * state and every queue's fill (the stats' time fractions), draws the queues in the trace and JFR, and is
 * the stall watchdog: after the quiet period without progress while the consumer waits (or the sink has
 * room), it reports which stage holds items and what its threads are doing.
 */
final class Housekeeper implements Runnable {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline");
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final JfrSwitch QUEUE_EVENTS_ON = new JfrSwitch(QueueSampleEvent.class);

    private final PipelineRuntime runtime;
    private final TraceRecorder trace;
    private final long stallTimeoutNanos;
    private final Consumer<StallReport> onStall;
    private final List<StallReport> reports = Collections.synchronizedList(new ArrayList<>());

    Housekeeper(PipelineRuntime runtime, TraceRecorder trace, long stallTimeoutMillis, Consumer<StallReport> onStall) {
        this.runtime = runtime;
        this.trace = trace;
        this.stallTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(stallTimeoutMillis);
        this.onStall = onStall;
    }

    List<StallReport> stallReports() {
        return List.copyOf(reports);
    }

    @Override
    public void run() {
        long lastProgress = runtime.progressMark();
        long lastProgressNanos = System.nanoTime();
        boolean reported = false;
        ConsumerSide consumer = runtime.consumer;
        while (!runtime.isClosing()) {
            LockSupport.parkNanos(TICK_NANOS);
            if (Thread.interrupted() || runtime.isClosing()) {
                return;
            }
            long now = System.nanoTime();
            sample(now);
            long progress = runtime.progressMark();
            if (progress != lastProgress) {
                lastProgress = progress;
                lastProgressNanos = now;
                reported = false;
            } else if (stallTimeoutNanos > 0 && !reported && !consumer.isFinished() && now - lastProgressNanos > stallTimeoutNanos
                    && (consumer.waiting() || !runtime.sink.isFull())) {
                reported = true;
                StallReport report = stallReport(TimeUnit.NANOSECONDS.toMillis(now - lastProgressNanos), consumer.waiting());
                reports.add(report);
                try {
                    onStall.accept(report);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "stall handler failed", e);
                }
            }
        }
    }

    private void sample(long now) {
        runtime.source.clock.sample();
        runtime.sink.sample();
        for (StageRunner s : runtime.stages) {
            s.enforceTimeout(now);
            s.sample();
        }
        if (trace != null) {
            for (StageRunner s : runtime.stages) {
                trace.counter("queue " + s.name, now, s.input.size());
            }
            trace.counter("queue sink", now, runtime.sink.size());
        }
        if (QUEUE_EVENTS_ON.get()) {
            for (StageRunner s : runtime.stages) {
                queueEvent(s.name, s.input);
            }
            queueEvent("sink", runtime.sink);
        }
    }

    private static void queueEvent(String name, BoundedQueue queue) {
        QueueSampleEvent e = new QueueSampleEvent();
        e.queue = name;
        e.size = queue.size();
        e.capacity = queue.capacity();
        e.commit();
    }

    private StallReport stallReport(long quietMillis, boolean consumerWaiting) {
        List<StallReport.StageHold> holds = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        text.append("stoker: pipeline stalled: nothing moved for ").append(quietMillis).append(" ms");
        text.append(consumerWaiting ? " while the consumer waits for data\n" : "\n");
        for (StageRunner s : runtime.stages) {
            int queued = s.input.size();
            int inFlight = s.inFlight.get();
            List<String> stacks = s.busyWorkerStacks();
            if (queued == 0 && inFlight == 0 && stacks.isEmpty()) {
                continue;
            }
            // Above the stacks: what a waiting worker said it waits for names the cause a stack cannot (who holds it).
            List<String> waits = s.downstreamWaits();
            holds.add(new StallReport.StageHold(s.name, queued, inFlight, stacks, waits));
            text.append("  stage '").append(s.name).append("': ").append(queued).append(" queued, ")
                    .append(inFlight).append(" in flight\n");
            for (String wait : waits) {
                text.append("    waits for ").append(wait).append('\n');
            }
            for (String stack : stacks) {
                text.append("    ").append(stack.replace("\n", "\n    ").stripTrailing()).append('\n');
            }
        }
        if (holds.isEmpty()) {
            text.append("  no stage holds items: the source is not producing (blocked in its iterator?)\n");
        }
        return new StallReport(quietMillis, holds, text.toString());
    }
}
