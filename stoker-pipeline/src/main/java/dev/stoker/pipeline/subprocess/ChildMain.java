package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.StageKind;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TraceRecorder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The child JVM: reads its {@link Wire.Launch} line from standard input, maps the shared file, rebuilds
 * its stages from their factories and runs them over the items ring, writing results to the results ring.
 * It never outlives its parent: end of file on standard input (the parent closed it, or died) or the
 * parent's pid no longer being its parent ends it at once ({@code Runtime.halt}).
 *
 * <p>Each item travels through the stages wrapped in a {@link Tagged}: its input's id, an output sequence
 * and a {@link Ticket} that counts the item's live descendants, so that the child can say when an input is
 * done, whatever the stages did with it (mapped, split, filtered out, failed). A batch stage gathers items
 * of several inputs into a {@link Group}, whose output names every member, so that the parent can account
 * for each input's share; an input whose descendants all wait in a batch is "settled" (not yet done).
 */
public final class ChildMain {
    private static final long PARENT_POLL_MILLIS = 200;
    private static final int OUTBOX_CAPACITY = 16;
    private static final int SEQ_BITS = 16;

    private ChildMain() { }

    /**
     * An output on its way to the results ring, or a marker. A group's output ({@link Wire#GROUP_OUTPUT}) names
     * its {@code members}: the items a batch stage gathered, each with its input's id and sequence.
     */
    private record Out(int type, long id, long seq, Object value, List<Tagged> members) {
        Out(int type, long id, long seq, Object value) {
            this(type, id, seq, value, List.of());
        }
    }

    /**
     * Counts an input's descendants in flight: the live ones (not yet written to the results ring, dropped or
     * failed; at zero the input is done) and, of those, the unsettled ones, which are not yet with a batch stage
     * either (at zero, while batches still hold some, the input is settled: the parent may send the next one
     * during probation, and a crash is not its fault). {@code skipSeqs} are the sequences of outputs the parent
     * already has (an input sent again after a crash): they are dropped, not sent twice or batched again.
     */
    static final class Ticket {
        final long inputId;
        private final long[] skipSeqs;
        private final AtomicInteger live = new AtomicInteger(1);
        private final AtomicInteger unsettled = new AtomicInteger(1);
        private final BlockingQueue<Out> outbox;

        Ticket(long inputId, long[] skipSeqs, BlockingQueue<Out> outbox) {
            this.inputId = inputId;
            this.skipSeqs = skipSeqs;
            this.outbox = outbox;
        }

        void add(int descendants) {
            live.addAndGet(descendants);
            unsettled.addAndGet(descendants);
        }

        boolean skips(long seq) {
            return skipSeqs.length > 0 && Arrays.binarySearch(skipSeqs, seq) >= 0;
        }

        void settleOne() {
            if (unsettled.decrementAndGet() == 0) {
                send(Wire.SETTLED);
            }
        }

        void finishOne(boolean settled) {
            boolean lastUnsettled = !settled && unsettled.decrementAndGet() == 0;
            if (live.decrementAndGet() == 0) {
                send(Wire.DONE);
            } else if (lastUnsettled) {
                send(Wire.SETTLED);
            }
        }

        private void send(int type) {
            try {
                outbox.put(new Out(type, inputId, 0, null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * An item inside the child, with its input's identity: one unit of its {@link Ticket}. The unit ends once:
     * {@link #finish} (written, dropped, failed, or discarded by {@link #close}), or handed to a successor
     * ({@link #with}: a map's output carries it on). Touched by one thread at a time (the engine's queues
     * order the hand-offs).
     */
    static final class Tagged implements AutoCloseable {
        final Ticket ticket;
        final long seq;
        final Object value;
        private boolean settled;
        private boolean ended;

        Tagged(Ticket ticket, long seq, Object value) {
            this.ticket = ticket;
            this.seq = seq;
            this.value = value;
        }

        /** The same unit carrying {@code next} (a map's output); this one is spent. */
        Tagged with(Object next) {
            ended = true;
            Tagged t = new Tagged(ticket, seq, next);
            t.settled = settled;
            return t;
        }

        /** Handed to a batch stage. */
        void settle() {
            if (!settled && !ended) {
                settled = true;
                ticket.settleOne();
            }
        }

        void finish() {
            if (!ended) {
                ended = true;
                ticket.finishOne(settled);
            }
        }

        /** Discarded (a failure, a dropped partial batch): releases the value, ends the unit. */
        @Override
        public void close() {
            release(value);
            finish();
        }

        @Override
        public String toString() {
            return String.valueOf(value);
        }
    }

    /**
     * What a batch stage made of several items, and what later stages made of that: {@code value} (first the
     * list of the members' values) and the members, whose units end when the group is written or discarded.
     */
    static final class Group implements AutoCloseable {
        final List<Tagged> members;
        final Object value;

        private Group(List<Tagged> members, Object value) {
            this.members = members;
            this.value = value;
        }

        /** A batch stage's output (a list of {@link Tagged}) or a group already. */
        static Group of(Object batchOrGroup) {
            if (batchOrGroup instanceof Group g) {
                return g;
            }
            List<Tagged> members = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            for (Object each : (List<?>) batchOrGroup) {
                Tagged t = (Tagged) each;
                members.add(t);
                values.add(t.value);
            }
            return new Group(List.copyOf(members), Collections.unmodifiableList(values));
        }

        Group with(Object next) {
            return new Group(members, next);
        }

        void finish() {
            members.forEach(Tagged::finish);
        }

        long firstInputId() {
            return members.isEmpty() ? -1 : members.getFirst().ticket.inputId;
        }

        @Override
        public void close() {
            release(value);
            finish();
        }

        @Override
        public String toString() {
            return members.size() + " items from '" + (members.isEmpty() ? "" : members.getFirst()) + "'";
        }
    }

    /** Closes what a discarded value holds: the value, or a list's elements (a batch stage's output). */
    static void release(Object value) {
        if (value instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort: it is dropped either way
            }
        } else if (value instanceof Iterable<?> many && !(value instanceof Path)) {
            for (Object each : many) {
                release(each);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        InputStream stdin = System.in;
        String line = readLine(stdin);
        if (line == null) {
            Runtime.getRuntime().halt(0);   // the parent went away before saying anything
        }
        Wire.Launch launch = Wire.JSON.readValue(line, Wire.Launch.class);
        watchParent(stdin, launch.parentPid());
        new ChildMain.Run(launch).run();
    }

    /** Reads one line byte by byte (nothing beyond it is consumed: the rest of stdin is the parent's liveness). */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        return b == -1 && line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    /** Halts this JVM when the parent is gone: stdin at end of file, or no longer the parent's child. */
    private static void watchParent(InputStream stdin, long parentPid) {
        Thread eof = Thread.ofPlatform().name("stoker-child-stdin").daemon(true).start(() -> {
            try {
                while (stdin.read() != -1) {
                    // the parent sends nothing more; any byte is ignored
                }
            } catch (IOException ignored) {
                // same as end of file
            }
            Runtime.getRuntime().halt(0);
        });
        Thread poll = Thread.ofPlatform().name("stoker-child-parent-watch").daemon(true).start(() -> {
            while (true) {
                long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                boolean alive = ProcessHandle.of(parentPid).map(ProcessHandle::isAlive).orElse(false);
                if (parent != parentPid || !alive) {
                    Runtime.getRuntime().halt(0);
                }
                try {
                    Thread.sleep(PARENT_POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        assert eof.isDaemon() && poll.isDaemon();
    }

    /** One run of the child: from the launch to the end of the stream (or the parent's end). */
    private static final class Run {
        private final Wire.Launch launch;
        private final SharedRing items;
        private final SharedRing results;
        private final ItemCodec<Object> inputCodec;
        private final ItemCodec<Object> outputCodec;
        private final BlockingQueue<Out> outbox = new ArrayBlockingQueue<>(OUTBOX_CAPACITY);
        private final TraceRecorder trace;
        private final Map<Throwable, Long> failedInputs = new ConcurrentHashMap<>();
        private Pipeline<Object> pipeline;
        private boolean firstIsBatch;
        private int failuresReported;
        private long traceRead;

        Run(Wire.Launch launch) {
            this.launch = launch;
            SharedMemoryFile file = SharedMemoryFile.open(Path.of(launch.file()), launch.fileBytes());
            this.items = new SharedRing(Wire.itemsRegion(file.segment(), launch.ringBytes()));
            this.results = new SharedRing(Wire.resultsRegion(file.segment(), launch.ringBytes()));
            this.inputCodec = ItemCodecs.named(launch.inputCodec());
            this.outputCodec = ItemCodecs.named(launch.outputCodec());
            this.trace = launch.trace() ? TraceRecorder.withMaxEvents(100_000) : null;
        }

        void run() throws InterruptedException {
            Thread writer = Thread.ofPlatform().name("stoker-child-writer").unstarted(this::write);
            try {
                pipeline = build(launch.spec());
            } catch (RuntimeException | Error e) {
                writeNow(Wire.FATAL, 0, 0, Wire.utf8(stackTrace(e)));
                Runtime.getRuntime().halt(1);
                return;
            }
            writeNow(Wire.HELLO, ProcessHandle.current().pid(), 0, new byte[0]);
            writer.start();
            try {
                while (true) {
                    for (Object o : pipeline.nextEpoch()) {
                        if (o instanceof Tagged t) {
                            if (t.ticket.skips(t.seq)) {   // the parent has it from the child before
                                t.close();
                                continue;
                            }
                            outbox.put(new Out(Wire.OUTPUT, t.ticket.inputId, t.seq, t.value));
                            t.finish();
                        } else {
                            Group g = Group.of(o);
                            outbox.put(new Out(Wire.GROUP_OUTPUT, g.firstInputId(), 0, g.value, g.members));
                            g.finish();
                        }
                    }
                    if (pipeline.endOfStream()) {
                        outbox.put(new Out(Wire.END, 0, 0, null));
                        break;
                    }
                    outbox.put(new Out(Wire.EPOCH_END, 0, 0, null));
                }
            } catch (PipelineFailedException e) {
                outbox.put(new Out(Wire.FATAL, 0, 0, e.getMessage()));
            }
            writer.join();   // sends what is left and a last report; then the child idles until the parent closes stdin
            Thread.sleep(Long.MAX_VALUE);
        }

        /**
         * The stages, each wrapped to carry its items' {@link Tagged} identity. A batch stage gathers tagged items
         * into a list; the stages after it (map and filter only) work on {@link Group}s.
         */
        @SuppressWarnings("unchecked")
        private Pipeline<Object> build(PipelineSpec spec) {
            List<PipelineSpec.Stage> stages = spec.stages();
            firstIsBatch = !stages.isEmpty() && stages.getFirst().kind() == StageKind.BATCH;
            EpochTokens source = new EpochTokens(this::nextItem);
            PipelineBuilder<Object> b = Pipeline.fromEpochs(source);
            boolean grouped = false;
            for (int i = 0; i < stages.size(); i++) {
                PipelineSpec.Stage stage = stages.get(i);
                boolean last = i == stages.size() - 1;   // its outputs go to the results ring
                boolean intoBatch = !last && stages.get(i + 1).kind() == StageKind.BATCH;
                if (stage.kind() == StageKind.BATCH) {
                    if (grouped) {
                        throw new IllegalArgumentException("stage '" + stage.name() + "': a second batch stage"
                                + " (expected: at most one batch stage in a child process)");
                    }
                    BatchConfig c = BatchConfig.parse(stage);
                    b = (PipelineBuilder<Object>) (PipelineBuilder<?>) b.batch(stage.name(), c.size(), c.dropLast());
                    grouped = true;
                    continue;
                }
                Function<Object, Object> fn = stage.createFunction();
                if (grouped) {
                    b = switch (stage.kind()) {
                        case MAP -> b.map(stage.name(), (Object in) -> mapGroup(fn, Group.of(in), last));
                        case FILTER -> b.filter(stage.name(), (Object in) -> filterGroup(fn, Group.of(in), last));
                        case FLAT_MAP, BATCH -> throw new IllegalArgumentException("stage '" + stage.name() + "' kind: " + stage.kind()
                                + " after a batch stage (expected: map or filter after a batch stage in a child process)");
                    };
                    continue;
                }
                b = switch (stage.kind()) {
                    case MAP -> b.map(stage.name(), (Object in) -> map(fn, (Tagged) in, last, intoBatch));
                    case FLAT_MAP -> b.flatMap(stage.name(), (Object in) -> flatMap(fn, (Tagged) in, last, intoBatch));
                    case FILTER -> b.filter(stage.name(), (Object in) -> filter(fn, (Tagged) in, last, intoBatch));
                    case BATCH -> throw new IllegalArgumentException("stage '" + stage.name() + "' kind: " + stage.kind()
                            + " (expected: map, flatMap, filter or batch in a child process)");
                };
            }
            b = b.config(spec.config());
            if (trace != null) {
                b = b.trace(trace);
            }
            return b.build();
        }

        /** A batch stage's {@code {"size":N,"dropLast":B}}. */
        private record BatchConfig(int size, boolean dropLast) {
            static BatchConfig parse(PipelineSpec.Stage stage) {
                try {
                    return Wire.JSON.readValue(stage.factoryConfig(), BatchConfig.class);
                } catch (IOException | RuntimeException e) {
                    throw new IllegalArgumentException("stage '" + stage.name() + "' (batch) config: '" + stage.factoryConfig()
                            + "' (expected: {\"size\":N,\"dropLast\":true|false})", e);
                }
            }
        }

        /**
         * Passes {@code t} on to a batch stage, or ends it there when the parent already has it (it was batched
         * and delivered before a crash: batching it again would repeat it). False when dropped.
         */
        private static boolean intoBatch(Tagged t) {
            if (t.ticket.skips(t.seq)) {
                t.close();
                return false;
            }
            t.settle();
            return true;
        }

        private Object map(Function<Object, Object> fn, Tagged in, boolean last, boolean intoBatch) {
            Object out;
            try {
                out = fn.apply(in.value);
                if (last) {
                    requireFits(out, 0, in);
                }
            } catch (RuntimeException | Error e) {
                failed(in.ticket.inputId, e);
                in.finish();
                throw e;
            }
            if (out == null) {
                in.finish();
                return null;
            }
            Tagged next = in.with(out);
            return !intoBatch || intoBatch(next) ? next : null;
        }

        private List<Tagged> flatMap(Function<Object, Object> fn, Tagged in, boolean last, boolean intoBatch) {
            List<Tagged> outs = new ArrayList<>();
            try {
                Object result = fn.apply(in.value);
                if (result != null) {
                    int i = 0;
                    for (Object each : (Iterable<?>) result) {
                        i++;
                        if (each != null) {
                            if (i >= 1 << SEQ_BITS || in.seq >= 1L << (63 - SEQ_BITS)) {
                                throw new IllegalStateException("flatMap output " + i + " of '" + in
                                        + "': more than 65535 outputs per item, or more than 3 flat-maps deep, cannot be numbered");
                            }
                            if (last) {
                                requireFits(each, 0, in);
                            }
                            outs.add(new Tagged(in.ticket, (in.seq << SEQ_BITS) | i, each));
                        }
                    }
                }
            } catch (RuntimeException | Error e) {
                outs.forEach(t -> release(t.value));
                failed(in.ticket.inputId, e);
                in.finish();
                throw e;
            }
            in.ticket.add(outs.size());   // before this unit ends, so that the count cannot reach zero early
            in.finish();
            if (intoBatch) {
                outs.removeIf(t -> !intoBatch(t));
            }
            return outs;
        }

        private boolean filter(Function<Object, Object> fn, Tagged in, boolean last, boolean intoBatch) {
            boolean keep;
            try {
                keep = Boolean.TRUE.equals(fn.apply(in.value));
                if (keep && last) {
                    requireFits(in.value, 0, in);
                }
            } catch (RuntimeException | Error e) {
                failed(in.ticket.inputId, e);
                in.finish();
                throw e;
            }
            if (!keep) {
                in.finish();
                return false;
            }
            return !intoBatch || intoBatch(in);
        }

        /** A map after a batch stage: over the group's value; a failure is the group's (the engine then discards it). */
        private Group mapGroup(Function<Object, Object> fn, Group in, boolean last) {
            Object out;
            try {
                out = fn.apply(in.value);
                if (last) {
                    requireFits(out, Wire.groupPrefixBytes(in.members.size()), in);
                }
            } catch (RuntimeException | Error e) {
                failed(in.firstInputId(), e);
                in.finish();
                throw e;
            }
            if (out == null) {
                in.finish();
                return null;
            }
            return in.with(out);
        }

        private boolean filterGroup(Function<Object, Object> fn, Group in, boolean last) {
            boolean keep;
            try {
                keep = Boolean.TRUE.equals(fn.apply(in.value));
                if (keep && last) {
                    requireFits(in.value, Wire.groupPrefixBytes(in.members.size()), in);
                }
            } catch (RuntimeException | Error e) {
                failed(in.firstInputId(), e);
                in.finish();
                throw e;
            }
            if (!keep) {
                in.finish();
            }
            return keep;
        }

        /**
         * Fails an output too large for the results ring (a record never wraps, so it could never be sent) as
         * its input's failure, instead of leaving the writer stuck; the output is closed if it holds resources.
         */
        private void requireFits(Object out, long prefixBytes, Object in) {
            if (out == null) {
                return;
            }
            long bytes = prefixBytes + outputCodec.encodedBytes(out);
            if (bytes > results.maxPayloadBytes()) {
                release(out);
                throw new OutputTooLargeException("output of '" + in + "' encodes to " + bytes
                        + " bytes, more than the ring carries (" + results.maxPayloadBytes()
                        + " bytes; raise SubprocessOptions.ringBytes)");
            }
        }

        private void failed(long inputId, Throwable e) {
            failedInputs.put(e, inputId);
        }

        /** The items ring as tokens: items become Tagged, epoch ends and the end become the markers. */
        private Object nextItem() throws InterruptedException {
            SharedRing.Record r = new SharedRing.Record();
            Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
            while (true) {
                while (!items.poll(r)) {
                    backoff.idle();
                }
                Object token;
                try {
                    token = switch (r.type) {
                        case Wire.ITEM -> {
                            long[] skips = Wire.itemSkips(r.payload);
                            yield new Tagged(new Ticket(r.id, skips, outbox), 0,
                                    inputCodec.decode(r.payload.asSlice(Wire.itemPrefixBytes(skips.length))));
                        }
                        case Wire.EPOCH_END -> EpochTokens.EPOCH_END;
                        case Wire.END -> EpochTokens.END;
                        default -> throw new IllegalStateException("unknown record type " + r.type + " from the parent");
                    };
                } finally {
                    items.release();
                }
                if (firstIsBatch && token instanceof Tagged t && !intoBatch(t)) {
                    continue;
                }
                return token;
            }
        }

        // ---- the results ring: one writer thread ----

        private void write() {
            long reportNanos = TimeUnit.MILLISECONDS.toNanos(launch.reportMillis());
            long nextReport = System.nanoTime() + reportNanos;
            try {
                while (true) {
                    Out out = outbox.poll(Math.max(1, nextReport - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (out != null) {
                        if (out.type() == Wire.END || out.type() == Wire.FATAL) {
                            writeNow(Wire.REPORT, 0, 0, report());   // failures before the end reach the parent first
                        }
                        if (out.type() == Wire.OUTPUT || out.type() == Wire.GROUP_OUTPUT) {
                            writeOutput(out);
                        } else {
                            byte[] payload = out.value() == null ? new byte[0] : Wire.utf8(String.valueOf(out.value()));
                            writeNow(out.type(), out.id(), out.seq(), payload);
                        }
                        if (out.type() == Wire.END || out.type() == Wire.FATAL) {
                            return;
                        }
                    }
                    if (System.nanoTime() >= nextReport) {
                        writeNow(Wire.REPORT, 0, 0, report());
                        nextReport = System.nanoTime() + reportNanos;
                    }
                }
            } catch (InterruptedException e) {
                // exiting
            }
        }

        private void writeOutput(Out out) throws InterruptedException {
            int members = out.members().size();
            long prefix = out.type() == Wire.GROUP_OUTPUT ? Wire.groupPrefixBytes(members) : 0;
            long bytes = prefix + outputCodec.encodedBytes(out.value());
            Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
            MemorySegment target;
            while ((target = results.tryClaim(out.type(), out.id(), out.seq(), bytes)) == null) {
                backoff.idle();
            }
            if (prefix > 0) {
                long[] ids = new long[members];
                long[] seqs = new long[members];
                for (int i = 0; i < members; i++) {
                    ids[i] = out.members().get(i).ticket.inputId;
                    seqs[i] = out.members().get(i).seq;
                }
                Wire.writeGroupPrefix(target, ids, seqs);
            }
            outputCodec.encode(out.value(), target.asSlice(prefix));
            results.commit();
            release(out.value());   // its bytes are in the ring: the child's copy is done
        }

        private void writeNow(int type, long id, long seq, byte[] payload) throws InterruptedException {
            Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
            MemorySegment target;
            while ((target = results.tryClaim(type, id, seq, payload.length)) == null) {
                backoff.idle();
            }
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, target, 0, payload.length);
            results.commit();
        }

        private byte[] report() {
            List<StageStats> stages = List.of();
            List<Wire.ChildFailure> newFailures = new ArrayList<>();
            List<Wire.ChildSlice> slices = new ArrayList<>();
            if (pipeline != null) {
                List<StageStats> all = pipeline.stats().stages();
                stages = all.subList(1, all.size());   // without the child's source (the items ring)
                List<Failure> failures = pipeline.failures();
                for (int i = failuresReported; i < failures.size(); i++) {
                    Failure f = failures.get(i);
                    Throwable c = f.cause();
                    Long inputId = failedInputs.remove(c);
                    newFailures.add(new Wire.ChildFailure(f.stage(), inputId == null ? -1 : inputId, f.item(), f.reason(), c.getClass().getName(),
                            c.getMessage(), f.timestampMillis()));
                }
                failuresReported = failures.size();
            }
            if (trace != null) {
                traceRead = trace.readSlices(traceRead, s -> slices.add(new Wire.ChildSlice(s.name(), s.category(),
                        s.threadId(), s.threadName(), s.startNanos(), s.durationNanos(), s.itemId(), s.detail())));
            }
            try {
                return Wire.JSON.writeValueAsBytes(new Wire.Report(ProcessHandle.current().pid(), stages, newFailures, slices));
            } catch (IOException e) {
                throw new IllegalStateException("cannot write the child's report: " + e, e);
            }
        }

        private static String stackTrace(Throwable t) {
            StringWriter s = new StringWriter();
            t.printStackTrace(new PrintWriter(s));
            return s.toString();
        }
    }

    /** An output that cannot cross: larger than the results ring. */
    static final class OutputTooLargeException extends IllegalArgumentException implements dev.stoker.pipeline.Failure.Reasoned {
        OutputTooLargeException(String message) {
            super(message);
        }

        @Override
        public String failureReason() {
            return "too large for the ring";
        }
    }
}
