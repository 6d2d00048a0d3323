package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TaskTimeStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

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
public final class StageRunner {
    final String name;
    final int index;
    final StageFunction function;
    volatile StageConfig config;   // effective: every field set; concurrency and queue capacity change on resize
    final BoundedQueue input;
    BoundedQueue output;
    final ExecutorService sharedPool;
    private final Function<Object, String> describer;
    final PipelineRuntime runtime;
    final ReorderBuffer reorder;
    private final List<StageWorker> workers = new java.util.concurrent.CopyOnWriteArrayList<>();   // every worker ever; retired ones stay for their stats
    private int targetWorkers;   // under 'this'

    final LongAdder itemsIn = new LongAdder();
    final LongAdder itemsOut = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final AtomicInteger inFlight = new AtomicInteger();
    // Take tickets fully handled (emitted or dropped): a marker with ticket n waits for n of them.
    final AtomicLong completedTickets = new AtomicLong();
    final LongAdder completed = new LongAdder();
    final TaskTimes taskTimes = new TaskTimes();

    /** A stage as described by the builder, before it runs: the function is created anew per pipeline. */
    public record Blueprint(String name, java.util.function.Supplier<StageFunction> function, StageConfig config,
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
        this.reorder = config.order() == Order.INPUT && !function.kind().sequential()
                ? new ReorderBuffer(ReorderBuffer.windowFor(config.concurrency(), config.queueCapacity()))
                : null;
        for (int i = 0; i < config.concurrency(); i++) {
            workers.add(new StageWorker(this, i));
        }
        this.targetWorkers = config.concurrency();
    }

    void connect(BoundedQueue downstream) {
        this.output = downstream;
    }

    List<Thread> start() {
        List<Thread> threads = new ArrayList<>(workers.size());
        for (StageWorker w : workers) {
            threads.add(newThread(w));
        }
        threads.forEach(Thread::start);
        return threads;
    }

    private Thread newThread(StageWorker w) {
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
        if (concurrency > 1 && function.kind().sequential()) {
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
                StageWorker w = new StageWorker(this, workers.size());
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
        for (StageWorker w : workers) {
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
        return Resources.abbreviate(text);
    }

    /** Interrupts tasks that have run past the stage's timeout; called by the housekeeper. */
    void enforceTimeout(long nowNanos) {
        long timeoutNanos = config.taskTimeoutMillis() * 1_000_000L;
        if (timeoutNanos <= 0) {
            return;
        }
        for (StageWorker w : workers) {
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
        for (StageWorker w : workers) {
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

    /**
     * What the workers inside a task wait for downstream, as their functions said it
     * ({@link StageStats#waitingDownstream(Supplier)}), asked now; a description that fails says so.
     */
    List<String> downstreamWaits() {
        List<String> waits = new ArrayList<>();
        for (StageWorker w : workers) {
            Supplier<String> what = w.clock.waitingFor();
            if (what == null || w.current() == null) {
                continue;
            }
            String said;
            try {
                said = what.get();
            } catch (RuntimeException e) {
                said = "(its description failed: " + e + ")";
            }
            if (said != null && !said.isBlank()) {
                waits.add(said);
            }
        }
        return waits;
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
        for (StageWorker w : workers) {
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
        for (StageWorker w : workers) {
            long[] t = w.clock.read();
            idle += t[WorkerClock.IDLE];
            busy += t[WorkerClock.BUSY];
            backPressured += t[WorkerClock.BACK_PRESSURED];
        }
        double total = Math.max(1, busy + idle + backPressured);
        TaskTimeStats times = taskTimes.snapshot();
        return new StageStats(name, function.kind().jsonName(), config.concurrency(), itemsIn.sum(), itemsOut.sum(), failures.sum(),
                dropped.sum(), inFlight.get(), busy / total, idle / total, backPressured / total, times,
                input.snapshot());
    }

    long completedTasks() { return completed.sum(); }
}
