package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.HostedStages;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.QueueStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TaskTimeStats;
import dev.stoker.pipeline.TraceRecorder;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent's side of stages running in a child JVM. Three threads: the pipeline's source thread reads
 * {@link #outputs()}; a feeder reads the real source into a small hand-off; the supervisor owns both rings
 * and the child process: it writes items, reads results, and when the child dies, restarts it.
 *
 * <p>Delivery is exactly once for what reaches the consumer: every item sent stays in {@code unacked}
 * (in send order, with the epoch ends) until the child says it is done with it; each output carries its
 * input's id and a per-input sequence, and the parent remembers which sequences it handed on. After a
 * crash the supervisor reads what the dead child had published, restarts it, and sends every unacked
 * entry again, items one at a time ("probation") so that a crash then names its culprit: an item in
 * flight alone at its second crash is quarantined, recorded as a failure ({@value ChildCrashedException#REASON}).
 *
 * <p>With a batch stage in the child, an output stands for items of several inputs: it lists them all, and
 * an input sent again carries the sequences already handed on, which the child drops before batching, so
 * that batches after a restart continue where the delivered ones ended. An input whose descendants all
 * wait in a batch is settled: during probation the next one may go, and a crash is not its fault.
 */
final class ChildProcessStages implements HostedStages {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");
    private static final String PREFIX = "child:";
    private static final int HANDOFF_CAPACITY = SubprocessOptions.DECODED_OUTPUTS_AHEAD - 1;
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long CHILD_TID_OFFSET = 1L << 40;
    private static final long[] NO_SKIPS = new long[0];

    private enum Kind { ITEM, EPOCH_END, END, ERROR }

    /** Something sent (or to send) to the child, kept until acknowledged. */
    private static final class Entry {
        final long id;
        final Kind kind;
        final int epoch;
        final Object value;
        final Throwable error;
        boolean sent;           // to the current child
        boolean settled;        // the current child holds only its batched descendants (no crash suspect)
        int crashes;            // times the child died while this was in flight
        Set<Long> delivered;    // output sequences handed on (usually one)

        Entry(long id, Kind kind, int epoch, Object value, Throwable error) {
            this.id = id;
            this.kind = kind;
            this.epoch = epoch;
            this.value = value;
            this.error = error;
        }

        boolean firstDelivery(long seq) {
            if (delivered == null) {
                delivered = new HashSet<>(2);
            }
            return delivered.add(seq);
        }

        /** The output sequences already handed on, sorted: what the child is to skip when this is sent again. */
        long[] skips() {
            if (delivered == null) {
                return NO_SKIPS;
            }
            long[] seqs = delivered.stream().mapToLong(Long::longValue).toArray();
            java.util.Arrays.sort(seqs);
            return seqs;
        }
    }

    private final SubprocessOptions options;
    private final PipelineSpec spec;
    private final ItemCodec<Object> inputCodec;
    private final ItemCodec<Object> outputCodec;
    private final TraceRecorder trace;
    private final EpochSource<?> inputs;
    private final SharedMemoryFile file;
    private final SharedRing items;
    private final SharedRing results;
    private final String launchLine;

    private final BlockingQueue<Entry> fromFeeder = new ArrayBlockingQueue<>(2);
    private final BlockingQueue<Object> handoff = new ArrayBlockingQueue<>(HANDOFF_CAPACITY);
    private final EpochTokens outputs;

    // Supervisor-thread state.
    private final ArrayDeque<Object> toDeliver = new ArrayDeque<>();
    private final LinkedHashMap<Long, Entry> unacked = new LinkedHashMap<>();
    private final ArrayDeque<Entry> resend = new ArrayDeque<>();
    private final SharedRing.Record record = new SharedRing.Record();
    private Entry nextFresh;
    private int inFlightInputs;
    private boolean probation;
    private boolean streamEnded;
    private boolean fatal;
    private int restarts;
    private Process process;
    private OutputStream childStdin;

    private final Thread feeder;
    private final Thread supervisor;
    private volatile boolean closed;
    private volatile List<StageStats> childStats;
    private final List<Failure> failures = new ArrayList<>();
    private final Map<String, Long> reportedPids = new LinkedHashMap<>();

    @SuppressWarnings("unchecked")
    private ChildProcessStages(SubprocessOptions options, PipelineSpec spec, EpochSource<?> inputs, TraceRecorder trace) {
        this.options = options;
        this.spec = spec;
        this.inputs = inputs;
        this.trace = trace;
        this.inputCodec = (ItemCodec<Object>) options.inputCodec();
        this.outputCodec = (ItemCodec<Object>) options.outputCodec();
        long ringBytes = options.ringBytes();
        this.file = SharedMemoryFile.create(2 * SharedRing.regionBytes(ringBytes));
        this.items = new SharedRing(Wire.itemsRegion(file.segment(), ringBytes));
        this.results = new SharedRing(Wire.resultsRegion(file.segment(), ringBytes));
        Wire.Launch launch = new Wire.Launch(file.path().toString(), ringBytes, spec, inputCodec.name(), outputCodec.name(),
                options.reportInterval().toMillis(), trace != null, ProcessHandle.current().pid());
        try {
            this.launchLine = Wire.JSON.writeValueAsString(launch) + "\n";
        } catch (IOException e) {
            file.close();
            throw new IllegalStateException("cannot describe the child's stages: " + e, e);
        }
        this.childStats = placeholderStats(spec);
        this.outputs = new EpochTokens(this::nextOutput);
        this.feeder = Thread.ofPlatform().name("stoker-child-feeder").daemon(true).unstarted(this::feed);
        this.supervisor = Thread.ofPlatform().name("stoker-child-supervisor").daemon(true).unstarted(this::supervise);
    }

    static ChildProcessStages start(SubprocessOptions options, PipelineSpec spec, EpochSource<?> inputs, TraceRecorder trace) {
        ItemCodecs.named(options.inputCodec().name());   // fail here, not in the child, on a codec it cannot make
        ItemCodecs.named(options.outputCodec().name());
        ChildProcessStages stages = new ChildProcessStages(options, spec, inputs, trace);
        try {
            stages.startChild();
        } catch (RuntimeException | Error e) {
            stages.close();
            throw e;
        }
        stages.feeder.start();
        stages.supervisor.start();
        return stages;
    }

    // ---- the pipeline's view ----

    @Override
    public EpochSource<?> outputs() {
        return outputs;
    }

    private Object nextOutput() throws InterruptedException {
        Object next = handoff.take();
        if (next instanceof PipelineFailedException failure) {
            throw failure;
        }
        return next;
    }

    @Override
    public List<StageStats> stageStats() {
        return childStats;
    }

    @Override
    public List<Failure> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Pid of the running child (or of the last one), -1 before the first start. */
    long childPid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    private static List<StageStats> placeholderStats(PipelineSpec spec) {
        List<StageStats> stats = new ArrayList<>();
        for (PipelineSpec.Stage s : spec.stages()) {
            Integer concurrency = spec.config().stage(s.name()).concurrency();
            stats.add(new StageStats(PREFIX + s.name(), s.kind().jsonName(), concurrency == null ? 1 : concurrency, 0, 0, 0, 0, 0, 0, 1, 0,
                    new TaskTimeStats(0, 0, 0, 0, 0, 0), new QueueStats(0, 0, 0, 0, 0)));
        }
        return List.copyOf(stats);
    }

    // ---- feeder: the real source into a small hand-off ----

    private void feed() {
        long id = 0;
        try {
            for (int epoch = 0; ; epoch++) {
                Iterable<?> epochItems = inputs.epoch(epoch);
                if (epochItems == null) {
                    break;
                }
                for (Object item : epochItems) {
                    if (item == null) {
                        throw new NullPointerException("source returned a null item (epoch " + epoch + ")");
                    }
                    fromFeeder.put(new Entry(id++, Kind.ITEM, epoch, item, null));
                }
                fromFeeder.put(new Entry(id++, Kind.EPOCH_END, epoch, null, null));
            }
            fromFeeder.put(new Entry(id, Kind.END, 0, null, null));
        } catch (InterruptedException e) {
            // closing
        } catch (Throwable t) {
            if (!closed) {
                try {
                    fromFeeder.put(new Entry(id, Kind.ERROR, 0, null, t));
                } catch (InterruptedException ignored) {
                    // closing
                }
            }
        }
    }

    // ---- supervisor: rings and process ----

    private void supervise() {
        Backoff backoff = new Backoff(MAX_PARK_NANOS);
        try {
            while (!closed) {
                boolean progress = false;
                while (true) {
                    while (!toDeliver.isEmpty() && handoff.offer(toDeliver.peekFirst())) {
                        toDeliver.pollFirst();
                        progress = true;
                    }
                    // The next result only once nothing waits here: decoding may wait for a pooled buffer that
                    // the consumer frees, and an output waiting here would never reach the consumer.
                    if (!toDeliver.isEmpty() || !results.poll(record)) {
                        break;
                    }
                    handle(record);
                    results.release();
                    progress = true;
                }
                if (!fatal && !streamEnded) {
                    progress |= send();
                }
                if (progress) {
                    backoff.reset();
                    continue;
                }
                if (!fatal && !streamEnded && !process.isAlive()) {
                    if (toDeliver.isEmpty() && results.bytesInFlight() == 0) {   // what it published is handled
                        recover();
                        continue;
                    }
                }
                backoff.idle();
            }
        } catch (InterruptedException e) {
            // closing
        } catch (Throwable t) {
            if (!closed) {
                LOG.log(System.Logger.Level.ERROR, "child process supervisor failed", t);
                toDeliver.clear();
                handoff.clear();
                handoff.offer(failed("the child process supervisor failed: " + t, t));
            }
        }
    }

    /** Sends the next entry if there is room; false when there is nothing to send now. */
    private boolean send() {
        boolean fromResend = !resend.isEmpty();
        Entry next;
        if (fromResend) {
            next = resend.peekFirst();
        } else {
            if (probation && inFlightInputs == 0) {
                probation = false;   // every suspect is through
            }
            if (probation) {
                return false;
            }
            if (nextFresh == null) {
                nextFresh = fromFeeder.poll();
                if (nextFresh == null) {
                    return false;
                }
            }
            next = nextFresh;
        }
        if (next.kind == Kind.ERROR) {
            nextFresh = null;
            fatal = true;
            toDeliver.add(failed("source failed: " + next.error, next.error));
            return true;
        }
        if (next.kind == Kind.ITEM && probation && inFlightInputs > 0) {
            return false;
        }
        if (!write(next)) {
            return false;
        }
        next.sent = true;
        if (fromResend) {
            resend.pollFirst();
        } else {
            unacked.put(next.id, next);
            nextFresh = null;
        }
        if (next.kind == Kind.ITEM) {
            inFlightInputs++;
        }
        return true;
    }

    private boolean write(Entry e) {
        return switch (e.kind) {
            case ITEM -> {
                long[] skips = e.skips();
                long prefix = Wire.itemPrefixBytes(skips.length);
                MemorySegment target;
                try {
                    long bytes = inputCodec.encodedBytes(e.value);
                    target = items.tryClaim(Wire.ITEM, e.id, e.epoch, prefix + bytes);
                    if (target == null) {
                        yield false;
                    }
                    Wire.writeItemPrefix(target, skips);
                    inputCodec.encode(e.value, target.asSlice(prefix, bytes));
                } catch (RuntimeException ex) {
                    throw new IllegalStateException("codec " + inputCodec.name() + " cannot encode item '" + describe(e.value)
                            + "': " + ex, ex);
                }
                items.commit();
                yield true;
            }
            case EPOCH_END -> items.tryWrite(Wire.EPOCH_END, e.id, e.epoch);
            case END -> items.tryWrite(Wire.END, e.id, 0);
            case ERROR -> throw new IllegalStateException("error entries are not sent");
        };
    }

    private void handle(SharedRing.Record r) {
        switch (r.type) {
            case Wire.OUTPUT -> {
                Entry e = unacked.get(r.id);
                if (e != null && e.firstDelivery(r.seq)) {
                    Object value = outputCodec.decode(r.payload);
                    if (value != null) {
                        toDeliver.add(value);
                    }
                }
            }
            case Wire.GROUP_OUTPUT -> {
                int members = Wire.groupMembers(r.payload);
                boolean fresh = false;
                boolean repeated = false;
                for (int i = 0; i < members; i++) {
                    Entry e = unacked.get(Wire.groupMemberInputId(r.payload, i));
                    if (e != null && e.firstDelivery(Wire.groupMemberSeq(r.payload, i))) {
                        fresh = true;
                    } else {
                        repeated = true;
                    }
                }
                if (fresh && repeated) {
                    LOG.log(System.Logger.Level.WARNING, "a batch from the child repeats some items delivered before;"
                            + " delivering it for the ones that are new");
                }
                if (fresh) {
                    Object value = outputCodec.decode(r.payload.asSlice(Wire.groupPrefixBytes(members)));
                    if (value != null) {
                        toDeliver.add(value);
                    }
                }
            }
            case Wire.SETTLED -> {
                Entry e = unacked.get(r.id);
                if (e != null && e.sent && !e.settled) {
                    e.settled = true;
                    inFlightInputs--;
                }
            }
            case Wire.DONE -> {
                Entry e = unacked.remove(r.id);
                if (e != null && !e.settled) {
                    inFlightInputs--;
                }
            }
            case Wire.EPOCH_END, Wire.END -> {
                Iterator<Entry> it = unacked.values().iterator();
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (e.kind != Kind.ITEM) {
                        it.remove();
                        break;
                    }
                }
                toDeliver.add(r.type == Wire.END ? EpochTokens.END : EpochTokens.EPOCH_END);
                if (r.type == Wire.END) {
                    streamEnded = true;
                }
            }
            case Wire.REPORT -> report(Wire.utf8(r.payload));
            case Wire.FATAL -> {
                fatal = true;
                toDeliver.add(failed("the child's stages failed: " + Wire.utf8(r.payload), null));
            }
            case Wire.HELLO -> { }
            default -> throw new IllegalStateException("unknown record type " + r.type + " from the child");
        }
    }

    private void report(String json) {
        Wire.Report report;
        try {
            report = Wire.JSON.readValue(json, Wire.Report.class);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "unreadable report from the child: " + e);
            return;
        }
        childStats = report.stages().stream().map(s -> new StageStats(PREFIX + s.name(), s.kind(), s.concurrency(),
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

    // ---- crashes ----

    /** The child is dead and everything it published has been handled: restart it, or give up. */
    private void recover() {
        if (streamEnded || fatal) {
            return;
        }
        String how = describeExit(process) + options.fatalErrorReport(process.pid())
                .map(f -> ", a JVM fatal error such as a native crash: see " + f.toAbsolutePath()).orElse("");
        restarts++;
        List<Entry> suspects = unacked.values().stream().filter(e -> e.kind == Kind.ITEM && e.sent && !e.settled).toList();
        List<String> named = suspects.stream().map(e -> "'" + describe(e.value) + "'").toList();
        if (suspects.size() == 1) {
            Entry culprit = suspects.getFirst();
            if (++culprit.crashes >= 2) {
                quarantine(culprit, how);
            }
        } else {
            suspects.forEach(e -> e.crashes++);
        }
        if (restarts > options.crashBudget()) {
            fatal = true;
            toDeliver.add(failed("the child process died " + restarts + " times (crash budget: " + options.crashBudget()
                    + " restarts); last: " + how + ", with items in flight " + named, null));
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "child process " + process.pid() + " died (" + how + ") with "
                + suspects.size() + " items in flight " + abbreviate(named) + "; restarting it (restart " + restarts + " of "
                + options.crashBudget() + ") and sending them again, one at a time");
        resend.clear();
        for (Entry e : unacked.values()) {
            e.sent = false;
            e.settled = false;
            resend.add(e);
        }
        probation = resend.stream().anyMatch(e -> e.kind == Kind.ITEM);
        inFlightInputs = 0;
        closeStdin();
        items.reset();
        results.reset();
        try {
            startChild();
        } catch (RuntimeException e) {
            fatal = true;
            toDeliver.add(failed("the child process died (" + how + ") and could not be restarted: " + e.getMessage(), e));
        }
    }

    private void quarantine(Entry culprit, String how) {
        unacked.remove(culprit.id);
        String item = describe(culprit.value);
        ChildCrashedException cause = new ChildCrashedException("item '" + item + "' killed the child process twice, the"
                + " second time alone in flight (" + how + "); skipped");
        LOG.log(System.Logger.Level.WARNING, cause.getMessage());
        synchronized (failures) {
            failures.add(new Failure(PREFIX + stageNames(), culprit.id, item, ChildCrashedException.REASON, cause,
                    System.currentTimeMillis()));
        }
    }

    private String stageNames() {
        return String.join(",", spec.stages().stream().map(PipelineSpec.Stage::name).toList());
    }

    private static String describeExit(Process p) {
        int code = p.exitValue();
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            String name = switch (signal) {
                case 6 -> "SIGABRT: a JVM fatal error such as a native crash (see its hs_err file)";
                case 9 -> "SIGKILL: killed, e.g. by the out-of-memory killer";
                case 11 -> "SIGSEGV";
                case 15 -> "SIGTERM";
                default -> "signal " + signal;
            };
            return "exit code " + code + ", " + name;
        }
        return "exit code " + code;
    }

    private static String abbreviate(List<String> names) {
        return names.size() <= 5 ? names.toString() : names.subList(0, 5) + " and " + (names.size() - 5) + " more";
    }

    private PipelineFailedException failed(String message, Throwable cause) {
        return new PipelineFailedException(message, List.of(PREFIX + stageNames()), cause);
    }

    private static String describe(Object value) {
        String text = String.valueOf(value);
        return text.length() <= 200 ? text : text.substring(0, 197) + "...";
    }

    // ---- the child process ----

    /** Starts a child and waits until it has built its stages (its HELLO); throws when it cannot. */
    private void startChild() {
        ProcessBuilder builder = new ProcessBuilder(options.command())
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(options.environment());
        try {
            process = builder.start();
            childStdin = process.getOutputStream();
            childStdin.write(launchLine.getBytes(StandardCharsets.UTF_8));
            childStdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the child JVM " + options.command() + ": " + e.getMessage(), e);
        }
        options.onChildStart().accept(process.pid());
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(5));
        while (true) {
            if (results.poll(record)) {
                int type = record.type;
                String payload = type == Wire.FATAL ? Wire.utf8(record.payload) : null;
                results.release();
                if (type == Wire.HELLO) {
                    return;
                }
                if (type == Wire.FATAL) {
                    stopChild();
                    throw new IllegalStateException("the child JVM could not build its stages: " + payload);
                }
                continue;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the child JVM exited (" + describeExit(process)
                        + ") before it was ready; its output is above. Command: " + options.command());
            }
            if (System.nanoTime() > deadline) {
                stopChild();
                throw new IllegalStateException("the child JVM was not ready within " + options.startTimeout()
                        + " (expected: SubprocessOptions.startTimeout longer, or a lighter stage set-up)");
            }
            try {
                backoff.idle();
            } catch (InterruptedException e) {
                stopChild();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the child JVM");
            }
        }
    }

    private void closeStdin() {
        try {
            if (childStdin != null) {
                childStdin.close();
            }
        } catch (IOException ignored) {
            // the child is gone
        }
    }

    /** Closing its standard input tells the child to exit; then destroy, then destroy forcibly. */
    private void stopChild() {
        Process p = process;
        if (p == null) {
            return;
        }
        closeStdin();
        long graceMillis = options.closeGrace().toMillis();
        try {
            if (!p.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                p.destroy();
                if (!p.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(graceMillis, TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        feeder.interrupt();
        supervisor.interrupt();
        try {
            if (supervisor.isAlive() || supervisor.getState() != Thread.State.NEW) {
                supervisor.join(5_000);
            }
            if (feeder.getState() != Thread.State.NEW) {
                feeder.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopChild();
        file.close();
        for (Entry e : unacked.values()) {
            release(e.value);
        }
        for (Object o : toDeliver) {
            release(o);
        }
        for (Object o : handoff) {
            release(o);
        }
    }

    private static void release(Object value) {
        ChildMain.release(value);
    }
}
