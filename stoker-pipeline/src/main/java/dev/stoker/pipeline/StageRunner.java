package dev.stoker.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Runs one stage: {@code concurrency} workers, each a loop of take → task → emit over the stage's
 * input queue. Workers are the stage's own named threads (platform by default, virtual on request);
 * with a shared pool, each worker hands its task to the pool and waits, so the stage's concurrency
 * still caps its tasks in flight.
 *
 * <p>{@link #resize} changes the number of workers while the stage runs: added workers start taking
 * input at once; a retired worker finishes the task it is on, and leaves at its next take (the input
 * queue hands it {@link BoundedQueue#RETIRE} instead of an item), so no item is lost or run twice. A
 * stage that keeps input order emits through its {@link ReorderBuffer} whatever its concurrency, so it
 * too can grow from one worker, and its window widens with it.
 */
final class StageRunner {
    private static final long BARRIER_POLL_NANOS = 50_000;
    private static final long TIME_EVERY_TASK_ABOVE_NANOS = 20_000;
    private static final int TIMING_SAMPLE = 8;

    final String name;
    final int index;
    final StageFunction function;
    volatile StageConfig config;   // effective: every field set; concurrency and queue capacity change on resize
    final BoundedQueue input;
    private BoundedQueue output;
    private final ExecutorService sharedPool;
    private final Function<Object, String> describer;
    private final PipelineRuntime runtime;
    private final ReorderBuffer reorder;
    private final List<Worker> workers = new java.util.concurrent.CopyOnWriteArrayList<>();   // every worker ever; retired ones stay for their stats
    private int targetWorkers;   // under 'this'

    final LongAdder itemsIn = new LongAdder();
    final LongAdder itemsOut = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final AtomicInteger inFlight = new AtomicInteger();
    // Take tickets fully handled (emitted or dropped): a marker with ticket n waits for n of them.
    private final AtomicLong completedTickets = new AtomicLong();
    private final LongAdder completed = new LongAdder();
    // Workers record into a wait-free Recorder; snapshots fold its intervals into the running total.
    private final Recorder taskMicros = new Recorder(3);
    private final Histogram taskMicrosTotal = new Histogram(3);
    private Histogram recycled;

    /** A stage as described by the builder, before it runs: the function is created anew per pipeline. */
    record Blueprint(String name, java.util.function.Supplier<StageFunction> function, StageConfig config,
                     ExecutorService executor, Function<Object, String> describer) {
        StageRunner create(int index, PipelineRuntime runtime) {
            return new StageRunner(name, index, function.get(), config, executor, describer, runtime);
        }
    }

    StageRunner(String name, int index, StageFunction function, StageConfig config, ExecutorService sharedPool,
                Function<Object, String> describer, PipelineRuntime runtime) {
        this.name = name;
        this.index = index;
        this.function = function;
        this.config = config;
        this.sharedPool = sharedPool;
        this.describer = describer;
        this.runtime = runtime;
        this.input = new BoundedQueue(name, config.queueCapacity());
        // Every stage that keeps input order gets a reorder buffer, one worker or many, so that its
        // concurrency can change while it runs (a batch stage is sequential and keeps order by itself).
        this.reorder = config.order() == Order.INPUT && !(function instanceof BatchStage)
                ? new ReorderBuffer(ReorderBuffer.windowFor(config.concurrency(), config.queueCapacity()))
                : null;
        for (int i = 0; i < config.concurrency(); i++) {
            workers.add(new Worker(i));
        }
        this.targetWorkers = config.concurrency();
    }

    void connect(BoundedQueue downstream) {
        this.output = downstream;
    }

    List<Thread> start() {
        List<Thread> threads = new ArrayList<>(workers.size());
        for (Worker w : workers) {
            threads.add(newThread(w));
        }
        threads.forEach(Thread::start);
        return threads;
    }

    private Thread newThread(Worker w) {
        boolean virtual = Boolean.TRUE.equals(config.virtualThreads()) || sharedPool != null;
        String threadName = "stoker-" + name + "-" + w.index;
        Thread t = virtual ? Thread.ofVirtual().name(threadName).unstarted(w)
                : Thread.ofPlatform().name(threadName).daemon(true).unstarted(w);
        w.thread = t;
        return t;
    }

    /**
     * Sets the number of workers to {@code concurrency} while the stage runs. Returns the threads of new
     * workers, not yet started (the runtime registers and starts them); fewer workers are asked to retire.
     *
     * @throws IllegalArgumentException for a batch stage (sequential)
     */
    synchronized List<Thread> resize(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("stage '" + name + "' concurrency: " + concurrency + " (expected: 1+)");
        }
        if (concurrency > 1 && function instanceof BatchStage) {
            throw new IllegalArgumentException("stage '" + name + "' concurrency: " + concurrency
                    + " (expected: 1; a batch stage is sequential)");
        }
        if (reorder != null) {   // before any new worker takes input: the window must hold them all
            reorder.ensureWindow(ReorderBuffer.windowFor(concurrency, config.queueCapacity()));
        }
        List<Thread> started = new ArrayList<>();
        int change = concurrency - targetWorkers;
        if (change > 0) {
            int toAdd = change - input.cancelRetire(change);
            for (int i = 0; i < toAdd; i++) {
                Worker w = new Worker(workers.size());
                workers.add(w);
                started.add(newThread(w));
            }
        } else if (change < 0) {
            input.retire(-change);
        }
        targetWorkers = concurrency;
        config = config.withConcurrency(concurrency);
        return started;
    }

    /** Sets the input queue's capacity while the stage runs. */
    void resizeQueue(int capacity) {
        input.setCapacity(capacity);
        synchronized (this) {
            config = config.withQueueCapacity(capacity);
            if (reorder != null) {
                reorder.ensureWindow(ReorderBuffer.windowFor(targetWorkers, capacity));
            }
        }
    }

    /** Workers that have not left (retired workers still on their last task included). */
    int liveWorkers() {
        int n = 0;
        for (Worker w : workers) {
            if (!w.exited) {
                n++;
            }
        }
        return n;
    }

    String describe(Object value) {
        String text;
        try {
            text = describer != null ? describer.apply(value) : String.valueOf(value);
        } catch (RuntimeException e) {
            text = value.getClass().getSimpleName() + " (describe failed: " + e + ")";
        }
        return text.length() <= 200 ? text : text.substring(0, 197) + "...";
    }

    /** Interrupts tasks that have run past the stage's timeout; called by the housekeeper. */
    void enforceTimeout(long nowNanos) {
        long timeoutNanos = config.taskTimeoutMillis() * 1_000_000L;
        if (timeoutNanos <= 0) {
            return;
        }
        for (Worker w : workers) {
            synchronized (w) {
                if (w.current != null && !w.timedOut && nowNanos - w.taskStartNanos > timeoutNanos) {
                    w.timedOut = true;
                    if (w.poolTask != null) {
                        w.poolTask.cancel(true);
                    }
                    w.thread.interrupt();
                }
            }
        }
    }

    /** Stacks of workers currently inside a task, for stall reports. */
    List<String> busyWorkerStacks() {
        List<String> stacks = new ArrayList<>();
        for (Worker w : workers) {
            Envelope current = w.current();
            Thread t = w.thread;
            if (current != null && t != null) {
                StringBuilder s = new StringBuilder();
                long started = w.taskStartNanos;
                s.append(t.getName()).append(" on item #").append(current.id)
                        .append(started == 0 ? "" : " for " + (System.nanoTime() - started) / 1_000_000 + " ms").append('\n');
                for (StackTraceElement e : t.getStackTrace()) {
                    s.append("    at ").append(e).append('\n');
                }
                stacks.add(s.toString());
            }
        }
        return stacks;
    }

    /** Items the stage holds (parked for ordering, or in a partial batch), for release at close. */
    List<Object> drainHeld() {
        List<Object> held = new ArrayList<>();
        if (reorder != null) {
            held.addAll(reorder.drain());
        }
        if (function instanceof BatchStage batch) {
            held.addAll(batch.drainPending());
        }
        return held;
    }

    /** Samples every worker's state and the input queue's fill; called by the housekeeper every tick. */
    void sample() {
        for (Worker w : workers) {
            if (!w.retired) {   // a retired worker's time stays in the totals, but stops growing
                w.clock.sample();
            }
        }
        input.sample();
    }

    StageStats snapshot() {
        long busy = 0;
        long idle = 0;
        long backPressured = 0;
        for (Worker w : workers) {
            long[] t = w.clock.read();
            idle += t[WorkerClock.IDLE];
            busy += t[WorkerClock.BUSY];
            backPressured += t[WorkerClock.BACK_PRESSURED];
        }
        double total = Math.max(1, busy + idle + backPressured);
        TaskTimeStats times;
        synchronized (taskMicrosTotal) {
            recycled = taskMicros.getIntervalHistogram(recycled);
            taskMicrosTotal.add(recycled);
            times = TaskTimes.of(taskMicrosTotal);
        }
        return new StageStats(name, function.kind().jsonName(), config.concurrency(), itemsIn.sum(), itemsOut.sum(), failures.sum(),
                dropped.sum(), inFlight.get(), busy / total, idle / total, backPressured / total, times,
                input.snapshot());
    }

    long completedTasks() {
        return completed.sum();
    }

    /** Whether a recording enables {@code stoker.Task}; refreshed by JFR's own flag, so this is one volatile read. */
    private static final JfrSwitch TASK_EVENTS_ON = new JfrSwitch(TaskEvent.class);

    private static final java.lang.invoke.VarHandle CURRENT;

    static {
        try {
            CURRENT = java.lang.invoke.MethodHandles.privateLookupIn(Worker.class, java.lang.invoke.MethodHandles.lookup())
                    .findVarHandle(Worker.class, "current", Envelope.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final class Worker implements Runnable {
        final int index;
        final WorkerClock clock = new WorkerClock();
        volatile Thread thread;
        volatile boolean exited;
        volatile boolean retired;
        // Written under 'this' when tasks can time out, so that a timeout interrupt can only hit the task
        // it was meant for; otherwise published with opaque stores, read only for stall reports.
        private Envelope current;
        long taskStartNanos;
        boolean timedOut;
        Future<?> poolTask;
        private long lastTaskNanos = Long.MAX_VALUE;
        private int untimed;
        private final boolean timeouts = config.taskTimeoutMillis() > 0;

        Worker(int index) {
            this.index = index;
        }

        Envelope current() {
            return (Envelope) CURRENT.getOpaque(this);
        }

        @Override
        public void run() {
            long[] ticket = new long[1];
            List<Envelope> out = new ArrayList<>();
            try {
                while (true) {
                    clock.enter(WorkerClock.IDLE);
                    if (reorder != null) {
                        reorder.acquireSlot();
                    }
                    Object element = input.take(ticket);
                    if (element == BoundedQueue.RETIRE) {
                        retired = true;
                        if (reorder != null) {
                            reorder.releaseUnusedSlot();
                        }
                        return;
                    }
                    if (element == BoundedQueue.FINISHED) {
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
                    Envelope envelope = (Envelope) element;
                    itemsIn.increment();
                    inFlight.incrementAndGet();
                    clock.enter(WorkerClock.BUSY);
                    out.clear();
                    TraceRecorder trace = runtime.trace;
                    TaskEvent event = TASK_EVENTS_ON.get() ? new TaskEvent() : null;
                    if (event != null) {
                        event.begin();
                    }
                    // Tasks are timed when they are long enough for a clock read not to matter, when a
                    // trace or timeout needs the time, and otherwise one in TIMING_SAMPLE: short tasks
                    // would spend more on nanoTime than on their work.
                    boolean timed = trace != null || timeouts || lastTaskNanos > TIME_EVERY_TASK_ABOVE_NANOS
                            || (++untimed & (TIMING_SAMPLE - 1)) == 0;
                    long start = timed ? System.nanoTime() : 0;
                    Object input = envelope.value;
                    boolean failed = !runTask(envelope, out, start);
                    if (timed) {
                        long end = System.nanoTime();
                        lastTaskNanos = end - start;
                        taskMicros.recordValue(lastTaskNanos / 1000);
                        if (trace != null) {
                            trace.slice(name, "task", thread, start, lastTaskNanos, envelope.id, describe(input));
                        }
                    }
                    if (event != null) {
                        event.end();
                        if (event.shouldCommit()) {
                            event.stage = name;
                            event.itemId = envelope.id;
                            event.item = describe(input);
                            event.failed = failed;
                            event.commit();
                        }
                    }
                    completed.increment();
                    emit(ticket[0], out);
                    inFlight.decrementAndGet();
                    completedTickets.incrementAndGet();
                }
            } catch (InterruptedException | BoundedQueue.ClosedException e) {
                // Closing: leave quietly; held items are released by the runtime.
            } catch (Throwable t) {
                runtime.failInternal(name, t);
            } finally {
                clock.enter(WorkerClock.IDLE);
                exited = true;
            }
        }

        /** Runs the stage function on one item; false when it failed (and was recorded as a failure). */
        private boolean runTask(Envelope envelope, List<Envelope> out, long start) throws InterruptedException {
            boolean timed = config.taskTimeoutMillis() > 0;
            if (timed || sharedPool != null) {
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
                if (sharedPool == null) {
                    function.apply(envelope, out, runtime);
                } else {
                    runOnPool(envelope, out);
                }
            } catch (Throwable t) {
                failure = t;
            }
            boolean wasTimedOut = false;
            if (timed || sharedPool != null) {
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
                failure = new TaskTimeoutException(name, config.taskTimeoutMillis());
            }
            if (runtime.isClosing()) {
                if (failure != null || wasTimedOut) {
                    throw new InterruptedException("pipeline closing");
                }
            }
            if (failure != null) {
                for (Envelope e : out) {
                    if (e.value != input) {
                        Envelope.release(e);
                    }
                }
                out.clear();
                envelope.value = input;
                failures.increment();
                runtime.recordFailure(StageRunner.this, envelope, describe(input), failure);
                Envelope.release(envelope);
                return false;
            }
            if (out.isEmpty()) {
                dropped.increment();
            }
            return true;
        }

        private void runOnPool(Envelope envelope, List<Envelope> out) throws Exception {
            Future<?> task;
            synchronized (this) {
                task = sharedPool.submit(() -> {
                    function.apply(envelope, out, runtime);
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
            if (reorder != null) {
                clock.enter(WorkerClock.BACK_PRESSURED);
                reorder.complete(ticket, out, this::put);
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
            output.put(element);
            if (element instanceof Envelope) {
                itemsOut.increment();
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
            if (reorder == null) {
                while (completedTickets.get() < ticket) {
                    LockSupport.parkNanos(BARRIER_POLL_NANOS);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
            function.flush(epoch, out, runtime);
            clock.enter(WorkerClock.BACK_PRESSURED);
            if (reorder != null) {
                List<Object> withMarker = new ArrayList<>(out);
                withMarker.add(marker);
                reorder.complete(ticket, withMarker, this::put);
            } else {
                putAll(out);
                output.put(marker);
            }
            completedTickets.incrementAndGet();
            if (marker instanceof Marker.EndOfStream) {
                input.finish();
            } else {
                input.resume();
            }
        }
    }
}
