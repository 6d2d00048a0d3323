package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.TraceRecorder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker of a stage: a loop of take → task → emit over the stage's input queue, until the end of the
 * stream, retirement ({@link BoundedQueue#RETIRE}) or close. Markers pass only after every item taken before
 * them: in completion order the worker waits for the other workers' tasks; in input order the
 * {@link ReorderBuffer} places them.
 */
final class StageWorker implements Runnable {
    private static final long BARRIER_POLL_NANOS = 50_000;
    private static final long TIME_EVERY_TASK_ABOVE_NANOS = 20_000;
    private static final int TIMING_SAMPLE = 8;
    /** Whether a recording enables {@code stoker.Task}; refreshed by JFR's own flag, so this is one volatile read. */
    private static final JfrSwitch TASK_EVENTS_ON = new JfrSwitch(TaskEvent.class);
    private static final VarHandle CURRENT = VarHandles.field(MethodHandles.lookup(), "current", Envelope.class);

    private final StageRunner stage;
    final int index;
    final WorkerClock clock = new WorkerClock();
    volatile Thread thread;
    volatile boolean exited;
    volatile boolean retired;
    // Written under 'this' when tasks can time out, so that a timeout interrupt can only hit the task
    // it was meant for; otherwise published with opaque stores, read only for stall reports.
    Envelope current;
    long taskStartNanos;
    boolean timedOut;
    Future<?> poolTask;
    private long lastTaskNanos = Long.MAX_VALUE;
    private int untimed;
    private final boolean timeouts;

    StageWorker(StageRunner stage, int index) {
        this.stage = stage;
        this.index = index;
        this.timeouts = stage.config.taskTimeoutMillis() > 0;
    }

    Envelope current() {
        return (Envelope) CURRENT.getOpaque(this);
    }

    @Override
    public void run() {
        long[] ticket = new long[1];
        List<Envelope> out = new ArrayList<>();
        ReorderBuffer reorder = stage.reorder;
        clock.bindToThisThread(true);
        try {
            while (true) {
                clock.enter(WorkerClock.IDLE);
                if (reorder != null) {
                    reorder.acquireSlot();
                }
                Object element = stage.input.take(ticket);
                if (element == BoundedQueue.RETIRE || element == BoundedQueue.FINISHED) {
                    retired = element == BoundedQueue.RETIRE;
                    if (reorder != null) {
                        reorder.releaseUnusedSlot();
                    }
                    return;
                }
                if (element instanceof Marker marker) {
                    passMarker(marker, ticket[0], out);
                    if (marker instanceof Marker.EndOfStream) {
                        return;
                    }
                    continue;
                }
                runOne((Envelope) element, ticket[0], out);
            }
        } catch (InterruptedException | BoundedQueue.ClosedException e) {
            // Closing: leave quietly; held items are released by the runtime.
        } catch (Throwable t) {
            stage.runtime.failInternal(stage.name, t);
        } finally {
            clock.enter(WorkerClock.IDLE);
            clock.bindToThisThread(false);
            exited = true;
        }
    }

    private void runOne(Envelope envelope, long ticket, List<Envelope> out) throws InterruptedException {
        stage.itemsIn.increment();
        stage.inFlight.incrementAndGet();
        clock.enter(WorkerClock.BUSY);
        out.clear();
        TraceRecorder trace = stage.runtime.trace;
        TaskEvent event = TASK_EVENTS_ON.get() ? new TaskEvent() : null;
        if (event != null) {
            event.begin();
        }
        // Tasks are timed when they are long enough for a clock read not to matter, when a trace or timeout
        // needs the time, and otherwise one in TIMING_SAMPLE: short tasks would spend more on nanoTime than on
        // their work.
        boolean timed = trace != null || timeouts || lastTaskNanos > TIME_EVERY_TASK_ABOVE_NANOS
                || (++untimed & (TIMING_SAMPLE - 1)) == 0;
        long start = timed ? System.nanoTime() : 0;
        Object input = envelope.value;
        boolean failed = !runTask(envelope, out, start);
        if (timed) {
            lastTaskNanos = System.nanoTime() - start;
            stage.taskTimes.recordNanos(lastTaskNanos);
            if (trace != null) {
                trace.slice(stage.name, "task", thread, start, lastTaskNanos, envelope.id, stage.describe(input));
            }
        }
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.stage = stage.name;
                event.itemId = envelope.id;
                event.item = stage.describe(input);
                event.failed = failed;
                event.commit();
            }
        }
        stage.completed.increment();
        emit(ticket, out);
        stage.inFlight.decrementAndGet();
        stage.completedTickets.incrementAndGet();
    }

    /** Runs the stage function on one item; false when it failed (and was recorded as a failure). */
    private boolean runTask(Envelope envelope, List<Envelope> out, long start) throws InterruptedException {
        boolean guarded = timeouts || stage.sharedPool != null;
        if (guarded) {
            synchronized (this) {
                taskStartNanos = start;
                current = envelope;
            }
        } else {
            taskStartNanos = start;
            CURRENT.setOpaque(this, envelope);
        }
        Throwable failure = null;
        Object input = envelope.value;
        try {
            if (stage.sharedPool == null) {
                stage.function.apply(envelope, out, stage.runtime);
            } else {
                runOnPool(envelope, out);
            }
        } catch (Throwable t) {
            failure = t;
        }
        boolean wasTimedOut = false;
        if (guarded) {
            synchronized (this) {
                current = null;
                poolTask = null;
                wasTimedOut = timedOut;
                timedOut = false;
            }
        } else {
            CURRENT.setOpaque(this, (Envelope) null);
        }
        if (wasTimedOut) {
            Thread.interrupted(); // the interrupt was ours, for this task only
            failure = new TaskTimeoutException(stage.name, stage.config.taskTimeoutMillis());
        }
        if (stage.runtime.isClosing() && failure != null) {
            throw new InterruptedException("pipeline closing");
        }
        if (failure != null) {
            for (Envelope e : out) {
                if (e.value != input) {
                    Envelope.release(e);
                }
            }
            out.clear();
            envelope.value = input;
            stage.failures.increment();
            stage.runtime.ledger.record(stage, envelope, stage.describe(input), failure);
            Envelope.release(envelope);
            return false;
        }
        if (out.isEmpty()) {
            stage.dropped.increment();
        }
        return true;
    }

    private void runOnPool(Envelope envelope, List<Envelope> out) throws Exception {
        Future<?> task;
        synchronized (this) {
            task = stage.sharedPool.submit(() -> {
                stage.function.apply(envelope, out, stage.runtime);
                return null;
            });
            poolTask = task;
        }
        try {
            task.get();
        } catch (InterruptedException e) {
            task.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
    }

    private void emit(long ticket, List<Envelope> out) throws InterruptedException {
        if (stage.reorder != null) {
            clock.enter(WorkerClock.BACK_PRESSURED);
            stage.reorder.complete(ticket, out, this::put);
            return;
        }
        if (out.isEmpty()) {
            return;
        }
        clock.enter(WorkerClock.BACK_PRESSURED);
        putAll(out);
    }

    /** Puts every element; if the pipeline closes midway, releases the ones not handed on. */
    private void putAll(List<? extends Object> elements) throws InterruptedException {
        for (int i = 0; i < elements.size(); i++) {
            try {
                put(elements.get(i));
            } catch (InterruptedException | BoundedQueue.ClosedException e) {
                for (int j = i; j < elements.size(); j++) {
                    Envelope.release(elements.get(j));
                }
                throw e;
            }
        }
    }

    private void put(Object element) throws InterruptedException {
        stage.output.put(element);
        if (element instanceof Envelope) {
            stage.itemsOut.increment();
        }
    }

    /**
     * Forwards a marker after every item taken before it. The queue paused itself when the marker was
     * taken, so nothing behind it starts; in completion order we wait for the other workers' tasks to
     * drain, in input order the reorder buffer already places the marker after them.
     */
    private void passMarker(Marker marker, long ticket, List<Envelope> out) throws InterruptedException {
        clock.enter(WorkerClock.BUSY);
        out.clear();
        int epoch = marker instanceof Marker.EpochEnd end ? end.epoch() : Integer.MAX_VALUE;
        if (stage.reorder == null) {
            while (stage.completedTickets.get() < ticket) {
                LockSupport.parkNanos(BARRIER_POLL_NANOS);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
        stage.function.flush(epoch, out, stage.runtime);
        clock.enter(WorkerClock.BACK_PRESSURED);
        if (stage.reorder != null) {
            List<Object> withMarker = new ArrayList<>(out);
            withMarker.add(marker);
            stage.reorder.complete(ticket, withMarker, this::put);
        } else {
            putAll(out);
            stage.output.put(marker);
        }
        stage.completedTickets.incrementAndGet();
        if (marker instanceof Marker.EndOfStream) {
            stage.input.finish();
        } else {
            stage.input.resume();
        }
    }
}
