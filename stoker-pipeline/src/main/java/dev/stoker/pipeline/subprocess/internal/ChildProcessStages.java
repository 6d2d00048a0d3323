package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.internal.HostedStages;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.pipeline.internal.Resources;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The parent's side of stages running in a child JVM, as the pipeline sees them. Three threads: the pipeline's
 * source thread reads {@link #outputs()}; a feeder ({@link SourceFeeder}) reads the real source into a small
 * hand-off; the supervisor ({@link ChildSupervisor}) owns both rings and the child process
 * ({@link ChildLauncher}): it writes items, reads results, and when the child dies, restarts it
 * ({@link CrashRecovery}).
 *
 * <p>Delivery is exactly once for what reaches the consumer: every item sent stays in the
 * {@link InFlightLedger} (in send order, with the epoch ends) until the child says it is done with it; each
 * output carries its input's id and a per-input sequence, and the parent remembers which sequences it handed
 * on. With a batch stage in the child, an output stands for items of several inputs: it lists them all, and
 * an input sent again carries the sequences already handed on, which the child drops before batching, so that
 * batches after a restart continue where the delivered ones ended. An input whose descendants all wait in a
 * batch is settled: during probation the next one may go, and a crash is not its fault.
 */
public final class ChildProcessStages implements HostedStages {
    private static final int HANDOFF_CAPACITY = SubprocessOptions.DECODED_OUTPUTS_AHEAD - 1;

    private final SharedMemoryFile file;
    private final BlockingQueue<Object> handoff = new ArrayBlockingQueue<>(HANDOFF_CAPACITY);
    private final EpochTokens outputs;
    private final ChildReports reports;
    private final ChildLauncher launcher;
    private final InFlightLedger ledger;
    private final SourceFeeder feeding;
    private final ChildSupervisor supervising;
    private final Thread feeder;
    private final Thread supervisor;
    private volatile boolean closed;

    @SuppressWarnings("unchecked")
    private ChildProcessStages(ChildSettings settings, PipelineSpec spec, EpochSource<?> inputs, TraceRecorder trace) {
        ItemCodec<Object> inputCodec = (ItemCodec<Object>) settings.inputCodec();
        ItemCodec<Object> outputCodec = (ItemCodec<Object>) settings.outputCodec();
        long ringBytes = settings.ringBytes();
        this.file = SharedMemoryFile.create(2 * SharedRing.regionBytes(ringBytes));
        SharedRing items = new SharedRing(Wire.itemsRegion(file.segment(), ringBytes));
        SharedRing results = new SharedRing(Wire.resultsRegion(file.segment(), ringBytes));
        Wire.Launch launch = new Wire.Launch(file.path().toString(), ringBytes, spec, inputCodec.name(), outputCodec.name(),
                settings.reportInterval().toMillis(), trace != null, ProcessHandle.current().pid());
        String launchLine;
        try {
            launchLine = Wire.JSON.writeValueAsString(launch) + "\n";
        } catch (IOException e) {
            file.close();
            throw new IllegalStateException("cannot describe the child's stages: " + e, e);
        }
        this.reports = new ChildReports(spec, trace);
        this.launcher = new ChildLauncher(settings, launchLine, new ChildRings(items, results));
        this.feeding = new SourceFeeder(inputs);
        this.ledger = new InFlightLedger(feeding);
        CrashRecovery recovery = new CrashRecovery(launcher, ledger, reports, settings.crashBudget());
        this.supervising = new ChildSupervisor(items, results, inputCodec, outputCodec, ledger, launcher, recovery,
                reports, handoff);
        this.outputs = new EpochTokens(this::nextOutput);
        this.feeder = Thread.ofPlatform().name("stoker-child-feeder").daemon(true).unstarted(feeding);
        this.supervisor = Thread.ofPlatform().name("stoker-child-supervisor").daemon(true).unstarted(supervising);
    }

    /** Starts the child, and once it runs, the feeder and the supervisor; throws (having cleaned up) when it cannot. */
    public static ChildProcessStages start(ChildSettings settings, PipelineSpec spec, EpochSource<?> inputs,
                                           TraceRecorder trace) {
        ItemCodecs.named(settings.inputCodec().name());   // fail here, not in the child, on a codec it cannot make
        ItemCodecs.named(settings.outputCodec().name());
        ChildProcessStages stages = new ChildProcessStages(settings, spec, inputs, trace);
        try {
            stages.launcher.start();
        } catch (RuntimeException | Error e) {
            stages.close();
            throw e;
        }
        stages.feeder.start();
        stages.supervisor.start();
        return stages;
    }

    @Override
    public EpochSource<?> outputs() { return outputs; }

    private Object nextOutput() throws InterruptedException {
        Object next = handoff.take();
        if (next instanceof PipelineFailedException failure) {
            throw failure;
        }
        return next;
    }

    @Override
    public List<StageStats> stageStats() { return reports.stageStats(); }

    @Override
    public List<Failure> failures() { return reports.failures(); }

    /** Pid of the running child (or of the last one), -1 before the first start. */
    public long childPid() { return launcher.pid(); }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        feeding.close();
        supervising.close();
        feeder.interrupt();
        supervisor.interrupt();
        try {
            if (supervisor.getState() != Thread.State.NEW) {
                supervisor.join(5_000);
            }
            if (feeder.getState() != Thread.State.NEW) {
                feeder.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        launcher.stop();
        file.close();
        for (SentEntry e : ledger.unacked()) {
            Resources.release(e.value);
        }
        supervising.undelivered().forEach(Resources::release);
        handoff.forEach(Resources::release);
    }
}
