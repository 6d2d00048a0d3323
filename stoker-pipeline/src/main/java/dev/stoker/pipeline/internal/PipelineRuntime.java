package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.SinkStats;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.StallReport;
import dev.stoker.pipeline.TraceRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Everything a running pipeline owns: the source thread ({@link SourceLoop}), the stages
 * ({@link StageRunner}), the sink queue and its consumer's end ({@link ConsumerSide}), the
 * {@link FailureLedger}, the {@link Housekeeper} thread and the {@link Reconfigurator}. {@link #close()} is
 * the one way out: it interrupts every thread, closes every queue, releases held items and waits for the
 * threads to end.
 */
public final class PipelineRuntime implements StageFunction.IdSource {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline");
    private static final long CLOSE_JOIN_MILLIS = 5_000;

    final List<StageRunner> stages;
    final BoundedQueue sink;
    final TraceRecorder trace;
    final SourceLoop source;
    final ConsumerSide consumer;
    final FailureLedger ledger;
    private final Housekeeper housekeeper;
    private final Reconfigurator reconfigurator;
    final HostedStages hosted;   // stages elsewhere (a child JVM) feeding the source, or null
    private final RuntimeSettings settings;
    private volatile PipelineConfig effectiveConfig;   // changes on reconfigure
    private final AtomicLong ids = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();   // guarded by itself: reconfigure adds workers
    private final long startNanos = System.nanoTime();
    private final CpuUse.Start cpuAtStart = CpuUse.start();
    private volatile boolean closing;
    private volatile PipelineFailedException failure;
    private volatile PipelineStats finalStats;   // taken when the consumer saw the end of the stream

    public PipelineRuntime(SourceSpec source, List<StageRunner.Blueprint> blueprints, RuntimeSettings settings) {
        this.settings = settings;
        this.trace = settings.trace();
        this.hosted = settings.hosted();
        this.effectiveConfig = settings.config();
        List<StageRunner> runners = new ArrayList<>();
        for (int i = 0; i < blueprints.size(); i++) {
            runners.add(blueprints.get(i).create(i, this));
        }
        this.stages = List.copyOf(runners);
        this.sink = new BoundedQueue("sink", settings.config().sinkCapacity());
        for (int i = 0; i < stages.size(); i++) {
            stages.get(i).connect(i + 1 < stages.size() ? stages.get(i + 1).input : sink);
        }
        this.source = new SourceLoop(this, source, stages.isEmpty() ? sink : stages.getFirst().input);
        this.consumer = new ConsumerSide(this, sink);
        this.ledger = new FailureLedger(this, settings.config().failureBudget());
        this.housekeeper = new Housekeeper(this, trace, settings.config().stallTimeoutMillis(), settings.onStall());
        this.reconfigurator = new Reconfigurator(this, trace, startNanos);
    }

    public void start() {
        synchronized (threads) {
            for (StageRunner stage : stages) {
                threads.addAll(stage.start());
            }
            Thread sourceThread = Thread.ofPlatform().name("stoker-source").daemon(true).unstarted(source);
            Thread housekeeping = Thread.ofPlatform().name("stoker-housekeeper").daemon(true).unstarted(housekeeper);
            threads.add(sourceThread);
            threads.add(housekeeping);
            sourceThread.start();
            housekeeping.start();
        }
    }

    /** Registers and starts workers a stage added while running; none once the pipeline closes. */
    void startWorkers(List<Thread> added) {
        synchronized (threads) {
            if (!closing) {   // shutdown sets closing, then interrupts what is in 'threads': none escapes
                threads.addAll(added);
                added.forEach(Thread::start);
            }
        }
    }

    private List<Thread> threadsNow() {
        synchronized (threads) {
            return new ArrayList<>(threads);
        }
    }

    /** The consumer's end of the sink. */
    public ConsumerSide consumer() { return consumer; }

    /** See {@code Pipeline.reconfigure}. */
    public synchronized void reconfigure(String stage, StageConfig change, String reason) {
        reconfigurator.reconfigure(stage, change, reason);
    }

    public void beforeReconfigure(Consumer<PipelineConfig> listener) {
        reconfigurator.beforeReconfigure(listener);
    }

    @Override
    public long nextId() { return ids.getAndIncrement(); }

    boolean isClosing() { return closing; }

    PipelineFailedException failure() { return failure; }

    public PipelineConfig effectiveConfig() { return effectiveConfig; }

    void effectiveConfig(PipelineConfig config) {
        effectiveConfig = config;
    }

    void failInternal(String stage, Throwable t) {
        if (!closing) {
            fail(new PipelineFailedException("stage '" + stage + "' failed internally: " + t, List.of(stage), List.of(), t));
        }
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

    public List<Failure> failures() { return ledger.failures(); }

    public List<StallReport> stallReports() { return housekeeper.stallReports(); }

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
    public void close() {
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
    public List<Thread> liveThreads() {
        return threadsNow().stream().filter(Thread::isAlive).toList();
    }

    private static void release(List<Object> elements) {
        for (Object e : elements) {
            Envelope.release(e);
        }
    }

    /** Items moved anywhere so far: the watchdog's sign of progress. */
    long progressMark() {
        long p = source.items() + consumer.delivered();
        for (StageRunner s : stages) {
            p += s.completedTasks();
        }
        return p;
    }

    /**
     * The consumer has seen the end of the stream: the stats stop here. Measured on, they would go on counting
     * the quiet time after the run (rates decaying, stages turning idle, the verdict wandering to 'starved').
     */
    void streamEnded() {
        finalStats = measure();
    }

    public PipelineStats stats() {
        PipelineStats end = finalStats;
        if (end == null) {
            return measure();
        }
        // A change after the end still takes effect (an autotuner stepping back its last probe): list it too.
        return new PipelineStats(end.elapsedMillis(), end.epoch(), end.outputsPerSecond(), end.stages(), end.sink(),
                end.failures(), end.failuresByReason(), end.verdict(), reconfigurator.reconfigurations());
    }

    private PipelineStats measure() {
        long elapsedNanos = System.nanoTime() - startNanos;
        List<StageStats> all = new ArrayList<>(stages.size() + 1);
        all.add(source.snapshot());
        if (hosted != null) {
            all.addAll(hosted.stageStats());
        }
        for (StageRunner s : stages) {
            all.add(s.snapshot());
        }
        SinkStats sinkStats = consumer.snapshot();
        FailureLedger.Counts failed = ledger.counts();
        return new PipelineStats(TimeUnit.NANOSECONDS.toMillis(elapsedNanos), consumer.epoch(),
                sinkStats.delivered() / Math.max(1e-9, elapsedNanos / 1e9), all, sinkStats, failed.total(), failed.byReason(),
                settings.judge().judge(all, sinkStats, cpuAtStart.since()), reconfigurator.reconfigurations());
    }
}
