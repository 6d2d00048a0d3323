package dev.stoker.pipeline;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Everything a running pipeline owns: the source thread, the stages, the sink queue, the failure
 * ledger and the housekeeper thread (task timeouts, the stall watchdog, queue samples for the trace).
 * {@link #close()} is the one way out: it interrupts every thread, closes every queue, releases held
 * items and waits for the threads to end.
 */
final class PipelineRuntime implements StageFunction.IdSource {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline");
    private static final int MAX_KEPT_FAILURES = 10_000;
    static final int MAX_KEPT_RECONFIGURATIONS = 1_000;
    private static final long HOUSEKEEPING_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long CLOSE_JOIN_MILLIS = 5_000;

    final List<StageRunner> stages;
    final BoundedQueue sink;
    final TraceRecorder trace;
    private final SourceSpec source;
    private final FailureBudget pipelineBudget;
    private final long stallTimeoutNanos;
    private final Consumer<StallReport> onStall;
    private volatile PipelineConfig effectiveConfig;   // changes on reconfigure
    private final HostedStages hosted;   // stages running elsewhere (a child JVM), feeding the source; or null

    private final AtomicLong ids = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();   // guarded by itself: reconfigure adds workers
    private volatile boolean closing;
    private volatile PipelineFailedException failure;
    volatile boolean finished;
    volatile boolean consumerWaiting;

    // Source accounting: the source is shown as a pseudo-stage.
    private final WorkerClock sourceClock = new WorkerClock();
    private final LongAdder sourceItems = new LongAdder();
    private final Recorder sourceMicros = new Recorder(3);
    private final Histogram sourceMicrosTotal = new Histogram(3);
    private Histogram sourceRecycled;

    // Failure ledger.
    private final Object failureLock = new Object();
    private final List<Failure> failures = new ArrayList<>();
    private final Map<String, Long> failuresByReason = new TreeMap<>();
    private long totalFailures;

    // Consumer accounting.
    final LongAdder delivered = new LongAdder();
    final LongAdder readyCalls = new LongAdder();
    final LongAdder waitedCalls = new LongAdder();
    final LongAdder consumerWaitNanos = new LongAdder();

    private final List<StallReport> stallReports = Collections.synchronizedList(new ArrayList<>());
    // Changes made while running, the newest MAX_KEPT_RECONFIGURATIONS; listeners hear of each before it applies.
    private final java.util.ArrayDeque<Reconfiguration> reconfigurations = new java.util.ArrayDeque<>();   // under itself
    private final List<Consumer<PipelineConfig>> beforeReconfigure = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final long startNanos = System.nanoTime();
    private volatile int consumerEpoch;

    PipelineRuntime(SourceSpec source, List<StageRunner.Blueprint> blueprints, int sinkCapacity,
                    FailureBudget pipelineBudget, long stallTimeoutMillis, Consumer<StallReport> onStall,
                    TraceRecorder trace, PipelineConfig effectiveConfig, HostedStages hosted) {
        this.source = source;
        this.pipelineBudget = pipelineBudget;
        this.stallTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(stallTimeoutMillis);
        this.onStall = onStall;
        this.trace = trace;
        this.effectiveConfig = effectiveConfig;
        this.hosted = hosted;
        List<StageRunner> runners = new ArrayList<>();
        for (int i = 0; i < blueprints.size(); i++) {
            runners.add(blueprints.get(i).create(i, this));
        }
        this.stages = List.copyOf(runners);
        this.sink = new BoundedQueue("sink", sinkCapacity);
        for (int i = 0; i < stages.size(); i++) {
            stages.get(i).connect(i + 1 < stages.size() ? stages.get(i + 1).input : sink);
        }
    }

    void start() {
        synchronized (threads) {
            for (StageRunner stage : stages) {
                threads.addAll(stage.start());
            }
            Thread sourceThread = Thread.ofPlatform().name("stoker-source").daemon(true).unstarted(this::runSource);
            Thread housekeeper = Thread.ofPlatform().name("stoker-housekeeper").daemon(true).unstarted(this::housekeep);
            threads.add(sourceThread);
            threads.add(housekeeper);
            sourceThread.start();
            housekeeper.start();
        }
    }

    private List<Thread> threadsNow() {
        synchronized (threads) {
            return new ArrayList<>(threads);
        }
    }

    /**
     * Changes one stage's concurrency and/or input queue capacity (the non-null ones of {@code change}; its
     * other fields must be null or what the stage has), or with {@code stage} "sink" the sink's capacity.
     * Listeners see the config about to take effect first; the change is recorded (stats, trace) with
     * {@code reason}.
     */
    synchronized void reconfigure(String stage, StageConfig change, String reason) {
        java.util.Objects.requireNonNull(change, "change");
        long start = System.nanoTime();
        if (stage.equals("sink")) {
            if (change.concurrency() != null || change.queueCapacity() == null) {
                throw new IllegalArgumentException("reconfigure sink: " + change + " (expected: a queueCapacity only)");
            }
            if (closing) {
                throw new IllegalStateException("reconfigure: the pipeline is closed");
            }
            int from = sink.capacity();
            PipelineConfig next = effectiveConfig.withSinkCapacity(change.queueCapacity());
            beforeReconfigure.forEach(l -> l.accept(next));
            sink.setCapacity(change.queueCapacity());
            effectiveConfig = next;
            record(start, "sink", "queueCapacity", from, change.queueCapacity(), reason);
            return;
        }
        StageRunner runner = null;
        for (StageRunner s : stages) {
            if (s.name.equals(stage)) {
                runner = s;
            }
        }
        if (runner == null) {
            List<String> names = new ArrayList<>(stages.stream().map(s -> s.name).toList());
            if (effectiveConfig.stages().containsKey(stage)) {
                throw new UnsupportedOperationException("reconfigure: stage '" + stage
                        + "' runs in another process (expected: one of " + names + " or sink)");
            }
            throw new IllegalArgumentException("reconfigure: stage '" + stage + "' (expected one of " + names + " or sink)");
        }
        StageConfig current = runner.config;
        if (change.order() != null && change.order() != current.order()
                || change.virtualThreads() != null && !change.virtualThreads().equals(current.virtualThreads())
                || change.failureBudget() != null && !change.failureBudget().equals(current.failureBudget())
                || change.taskTimeoutMillis() != null && !change.taskTimeoutMillis().equals(current.taskTimeoutMillis())) {
            throw new IllegalArgumentException("reconfigure stage '" + stage + "': " + change
                    + " (expected: only concurrency and queueCapacity change while running)");
        }
        if (change.concurrency() != null && change.concurrency() > 1 && runner.function instanceof BatchStage) {
            throw new IllegalArgumentException("stage '" + stage + "' concurrency: " + change.concurrency()
                    + " (expected: 1; a batch stage is sequential)");
        }
        if (closing) {
            throw new IllegalStateException("reconfigure: the pipeline is closed");
        }
        PipelineConfig next = effectiveConfig.withStage(stage, current.overriddenBy(
                new StageConfig(change.concurrency(), change.queueCapacity(), null, null, null, null)));
        beforeReconfigure.forEach(l -> l.accept(next));
        if (change.queueCapacity() != null) {
            runner.resizeQueue(change.queueCapacity());
            record(start, stage, "queueCapacity", current.queueCapacity(), change.queueCapacity(), reason);
        }
        if (change.concurrency() != null) {
            List<Thread> added = runner.resize(change.concurrency());
            synchronized (threads) {
                if (!closing) {   // shutdown sets closing, then interrupts what is in 'threads': none escapes
                    threads.addAll(added);
                    added.forEach(Thread::start);
                }
            }
            record(start, stage, "concurrency", current.concurrency(), change.concurrency(), reason);
        }
        effectiveConfig = effectiveConfig.withStage(stage, runner.config);
    }

    /** Registers a listener {@link #reconfigure} calls with the config about to take effect, before it does. */
    void beforeReconfigure(Consumer<PipelineConfig> listener) {
        beforeReconfigure.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** Keeps a change for the stats, and draws it in the trace: a counter, and a slice on the caller's track. */
    private void record(long startNanos, String stage, String knob, int from, int to, String reason) {
        Reconfiguration r = new Reconfiguration(TimeUnit.NANOSECONDS.toMillis(startNanos - this.startNanos), stage, knob,
                from, to, reason);
        synchronized (reconfigurations) {
            reconfigurations.addLast(r);
            if (reconfigurations.size() > MAX_KEPT_RECONFIGURATIONS) {
                reconfigurations.removeFirst();
            }
        }
        if (trace != null) {
            trace.counter((knob.equals("concurrency") ? "concurrency " : "capacity ") + stage, startNanos, to);
            trace.slice(r.change(), "reconfigure", Thread.currentThread(), startNanos,
                    Math.max(1_000, System.nanoTime() - startNanos), -1, r.reason());
        }
    }

    List<Reconfiguration> reconfigurations() {
        synchronized (reconfigurations) {
            return List.copyOf(reconfigurations);
        }
    }

    @Override
    public long nextId() {
        return ids.getAndIncrement();
    }

    boolean isClosing() {
        return closing;
    }

    PipelineFailedException failure() {
        return failure;
    }

    PipelineConfig effectiveConfig() {
        return effectiveConfig;
    }

    private BoundedQueue firstQueue() {
        return stages.isEmpty() ? sink : stages.getFirst().input;
    }

    private void runSource() {
        BoundedQueue first = firstQueue();
        Thread self = Thread.currentThread();
        long lastNanos = Long.MAX_VALUE;
        int untimed = 0;
        try {
            for (int epoch = 0; ; epoch++) {
                sourceClock.enter(WorkerClock.BUSY);
                Iterator<?> items = source.open(epoch);
                if (items == null) {
                    break;
                }
                while (true) {
                    sourceClock.enter(WorkerClock.BUSY);
                    boolean timed = trace != null || lastNanos > 20_000 || (++untimed & 7) == 0;
                    long start = timed ? System.nanoTime() : 0;
                    if (!items.hasNext()) {
                        break;
                    }
                    Object value = items.next();
                    if (value == null) {
                        throw new NullPointerException("source returned a null item (epoch " + epoch + ")");
                    }
                    Envelope envelope = new Envelope(nextId(), epoch, value);
                    if (timed) {
                        long end = System.nanoTime();
                        lastNanos = end - start;
                        sourceMicros.recordValue(lastNanos / 1000);
                        if (trace != null) {
                            trace.slice("source", self, start, lastNanos, envelope.id);
                        }
                    }
                    sourceClock.enter(WorkerClock.BACK_PRESSURED);
                    first.put(envelope);
                    sourceItems.increment();
                }
                if (source.epochMarkers()) {
                    sourceClock.enter(WorkerClock.BACK_PRESSURED);
                    first.put(new Marker.EpochEnd(epoch));
                }
            }
            sourceClock.enter(WorkerClock.BACK_PRESSURED);
            first.put(Marker.END);
        } catch (InterruptedException | BoundedQueue.ClosedException e) {
            // closing
        } catch (PipelineFailedException e) {
            if (!closing) {
                fail(e);   // from hosted stages: already names where and why
            }
        } catch (Throwable t) {
            if (!closing) {
                fail(new PipelineFailedException("source failed: " + t, List.of("source"), List.of(), t));
            }
        } finally {
            sourceClock.enter(WorkerClock.IDLE);
        }
    }

    void recordFailure(StageRunner stage, Envelope envelope, String item, Throwable cause) {
        Failure f = new Failure(stage.name, envelope.id, item, Failure.reasonOf(cause), cause, System.currentTimeMillis());
        long total;
        synchronized (failureLock) {
            if (failures.size() < MAX_KEPT_FAILURES) {
                failures.add(f);
            }
            failuresByReason.merge(stage.name + ": " + f.reason(), 1L, Long::sum);
            total = ++totalFailures;
        }
        long stageFailures = stage.failures.sum();
        long stageItems = stage.itemsIn.sum();
        if (stage.config.failureBudget().isExceeded(stageFailures, stageItems)) {
            fail(budgetExceeded("stage '" + stage.name + "'", stage.name, stageFailures, stageItems,
                    stage.config.failureBudget()));
        } else if (pipelineBudget.isExceeded(total, sourceItems.sum())) {
            fail(budgetExceeded("the pipeline", stage.name, total, sourceItems.sum(), pipelineBudget));
        }
    }

    void failInternal(String stage, Throwable t) {
        if (!closing) {
            fail(new PipelineFailedException("stage '" + stage + "' failed internally: " + t, List.of(stage), List.of(), t));
        }
    }

    private PipelineFailedException budgetExceeded(String scope, String stage, long failed, long items,
                                                   FailureBudget budget) {
        List<String> failing = new ArrayList<>();
        failing.add(stage);
        Map<String, Long> perStage = new LinkedHashMap<>();
        List<Failure> first = new ArrayList<>();
        Map<String, Integer> shown = new LinkedHashMap<>();
        synchronized (failureLock) {
            for (Failure f : failures) {
                perStage.merge(f.stage(), 1L, Long::sum);
                if (shown.merge(f.stage(), 1, Integer::sum) <= 3) {
                    first.add(f);
                }
            }
        }
        perStage.keySet().stream().filter(s -> !s.equals(stage)).forEach(failing::add);
        StringBuilder m = new StringBuilder();
        m.append("failure budget exceeded in ").append(scope).append(": ").append(failed).append(" of ")
                .append(items).append(" items failed (budget: ").append(budget).append("). Failing stages: ");
        for (int i = 0; i < failing.size(); i++) {
            String s = failing.get(i);
            m.append(i == 0 ? "" : ", ").append(s).append(" (").append(perStage.getOrDefault(s, 0L)).append(" failed)");
        }
        m.append(". First failures:");
        for (Failure f : first) {
            m.append("\n  ").append(f.describe());
        }
        return new PipelineFailedException(m.toString(), failing, first, first.isEmpty() ? null : first.getFirst().cause());
    }

    /** Ends the run with {@code reason}: the consumer's next call throws it. Safe from any thread. */
    void fail(PipelineFailedException reason) {
        synchronized (this) {
            if (failure != null || closing) {
                return;
            }
            failure = reason;
        }
        shutdown();
    }

    List<Failure> failures() {
        List<Failure> all;
        synchronized (failureLock) {
            all = new ArrayList<>(failures);
        }
        if (hosted != null) {
            all.addAll(hosted.failures());
            all.sort(java.util.Comparator.comparingLong(Failure::timestampMillis));
        }
        return List.copyOf(all);
    }

    List<StallReport> stallReports() {
        return List.copyOf(stallReports);
    }

    void consumerEpoch(int epoch) {
        consumerEpoch = epoch;
    }

    int consumerEpoch() {
        return consumerEpoch;
    }

    /** Stops every thread without waiting: safe to call from a worker. */
    private void shutdown() {
        closing = true;
        for (StageRunner stage : stages) {
            release(stage.input.close());
        }
        release(sink.close());
        synchronized (threads) {
            for (Thread t : threads) {
                if (t != Thread.currentThread()) {
                    t.interrupt();
                }
            }
        }
    }

    /** Stops and joins every thread; releases items still held. Idempotent. */
    void close() {
        shutdown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_JOIN_MILLIS);
        List<String> stuck = new ArrayList<>();
        for (Thread t : threadsNow()) {
            if (t == Thread.currentThread()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive()) {
                stuck.add(t.getName());
            }
        }
        for (StageRunner stage : stages) {
            release(stage.drainHeld());
        }
        if (hosted != null) {
            hosted.close();
        }
        if (!stuck.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "pipeline closed, but these threads ignored interruption for "
                    + CLOSE_JOIN_MILLIS + " ms and are still running (a stage function is blocked in a call that cannot be interrupted): " + stuck);
        }
    }

    /** Threads this pipeline started that are still alive. */
    List<Thread> liveThreads() {
        return threadsNow().stream().filter(Thread::isAlive).toList();
    }

    private static void release(List<Object> elements) {
        for (Object e : elements) {
            Envelope.release(e);
        }
    }

    // ---- housekeeping: timeouts, watchdog, trace counters ----

    private long progressMark() {
        long p = sourceItems.sum() + delivered.sum();
        for (StageRunner s : stages) {
            p += s.completedTasks();
        }
        return p;
    }

    private void housekeep() {
        long lastProgress = progressMark();
        long lastProgressNanos = System.nanoTime();
        boolean reported = false;
        while (!closing) {
            LockSupport.parkNanos(HOUSEKEEPING_TICK_NANOS);
            if (Thread.interrupted() || closing) {
                return;
            }
            long now = System.nanoTime();
            sourceClock.sample();
            sink.sample();
            for (StageRunner s : stages) {
                s.enforceTimeout(now);
                s.sample();
            }
            if (trace != null) {
                for (StageRunner s : stages) {
                    trace.counter("queue " + s.name, now, s.input.size());
                }
                trace.counter("queue sink", now, sink.size());
            }
            if (QUEUE_EVENTS_ON.get()) {
                for (StageRunner s : stages) {
                    queueEvent(s.name, s.input);
                }
                queueEvent("sink", sink);
            }
            long progress = progressMark();
            if (progress != lastProgress) {
                lastProgress = progress;
                lastProgressNanos = now;
                reported = false;
            } else if (stallTimeoutNanos > 0 && !reported && !finished && now - lastProgressNanos > stallTimeoutNanos
                    && (consumerWaiting || !sink.isFull())) {
                reported = true;
                StallReport report = stallReport(TimeUnit.NANOSECONDS.toMillis(now - lastProgressNanos));
                stallReports.add(report);
                try {
                    onStall.accept(report);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "stall handler failed", e);
                }
            }
        }
    }

    private static final JfrSwitch QUEUE_EVENTS_ON = new JfrSwitch(QueueSampleEvent.class);

    private static void queueEvent(String name, BoundedQueue queue) {
        QueueSampleEvent e = new QueueSampleEvent();
        e.queue = name;
        e.size = queue.size();
        e.capacity = queue.capacity();
        e.commit();
    }

    private StallReport stallReport(long quietMillis) {
        List<StallReport.StageHold> holds = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        text.append("stoker: pipeline stalled: nothing moved for ").append(quietMillis).append(" ms");
        text.append(consumerWaiting ? " while the consumer waits for data\n" : "\n");
        for (StageRunner s : stages) {
            int queued = s.input.size();
            int inFlight = s.inFlight.get();
            List<String> stacks = s.busyWorkerStacks();
            if (queued == 0 && inFlight == 0 && stacks.isEmpty()) {
                continue;
            }
            holds.add(new StallReport.StageHold(s.name, queued, inFlight, stacks));
            text.append("  stage '").append(s.name).append("': ").append(queued).append(" queued, ")
                    .append(inFlight).append(" in flight\n");
            for (String stack : stacks) {
                text.append("    ").append(stack.replace("\n", "\n    ").stripTrailing()).append('\n');
            }
        }
        if (holds.isEmpty()) {
            text.append("  no stage holds items: the source is not producing (blocked in its iterator?)\n");
        }
        return new StallReport(quietMillis, holds, text.toString());
    }

    // ---- stats ----

    PipelineStats stats() {
        long elapsedNanos = System.nanoTime() - startNanos;
        List<StageStats> all = new ArrayList<>(stages.size() + 1);
        long[] t = sourceClock.read();
        double total = Math.max(1, t[0] + t[1] + t[2]);
        TaskTimeStats sourceTimes;
        synchronized (sourceMicrosTotal) {
            sourceRecycled = sourceMicros.getIntervalHistogram(sourceRecycled);
            sourceMicrosTotal.add(sourceRecycled);
            sourceTimes = TaskTimes.of(sourceMicrosTotal);
        }
        long emitted = sourceItems.sum();
        // Fed by hosted stages, the source's "work" is waiting for their next output: idle time, not a
        // saturated stage (the hosted stages' own stats say which of them is busy).
        double busy = hosted != null ? 0 : t[WorkerClock.BUSY] / total;
        double idle = hosted != null ? (t[WorkerClock.BUSY] + t[WorkerClock.IDLE]) / total : t[WorkerClock.IDLE] / total;
        all.add(new StageStats("source", "source", 1, emitted, emitted, 0, 0, 0,
                busy, idle, t[WorkerClock.BACK_PRESSURED] / total, sourceTimes, new QueueStats(0, 0, 0, 0, 0)));
        if (hosted != null) {
            all.addAll(hosted.stageStats());
        }
        for (StageRunner s : stages) {
            all.add(s.snapshot());
        }
        QueueStats sinkQueue = sink.snapshot();
        long ready = readyCalls.sum();
        long waited = waitedCalls.sum();
        long deliveredNow = delivered.sum();
        SinkStats sinkStats = new SinkStats(sinkQueue.capacity(), sinkQueue.size(), deliveredNow,
                ready + waited == 0 ? 0 : (double) ready / (ready + waited),
                consumerWaitNanos.sum() / 1e6, sinkQueue.meanFill());
        long failed;
        Map<String, Long> byReason;
        synchronized (failureLock) {
            failed = totalFailures;
            byReason = new TreeMap<>(failuresByReason);
        }
        if (hosted != null) {
            for (Failure f : hosted.failures()) {
                failed++;
                byReason.merge(f.stage() + ": " + f.reason(), 1L, Long::sum);
            }
        }
        return new PipelineStats(TimeUnit.NANOSECONDS.toMillis(elapsedNanos), consumerEpoch,
                deliveredNow / Math.max(1e-9, elapsedNanos / 1e9), all, sinkStats, failed, byReason,
                BottleneckAnalysis.judge(all, sinkStats), reconfigurations());
    }
}
