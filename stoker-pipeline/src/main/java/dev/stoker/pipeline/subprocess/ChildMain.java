package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
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
 * done, whatever the stages did with it (mapped, split, filtered out, failed).
 */
public final class ChildMain {
    private static final long PARENT_POLL_MILLIS = 200;
    private static final int OUTBOX_CAPACITY = 16;
    private static final int SEQ_BITS = 16;

    private ChildMain() { }

    /** An output on its way to the results ring, or a marker. */
    private record Out(int type, long id, long seq, Object value) { }

    /** Counts an input's descendants in flight; at zero the input is done. */
    static final class Ticket {
        final long inputId;
        private final AtomicInteger live = new AtomicInteger(1);
        private final BlockingQueue<Out> outbox;

        Ticket(long inputId, BlockingQueue<Out> outbox) {
            this.inputId = inputId;
            this.outbox = outbox;
        }

        void add(int descendants) {
            live.addAndGet(descendants);
        }

        void finishOne() {
            if (live.decrementAndGet() == 0) {
                try {
                    outbox.put(new Out(Wire.DONE, inputId, 0, null));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** An item inside the child, with its input's identity. */
    record Tagged(Ticket ticket, long seq, Object value) implements AutoCloseable {
        Tagged with(Object next) {
            return new Tagged(ticket, seq, next);
        }

        @Override
        public void close() throws Exception {
            if (value instanceof AutoCloseable c) {
                c.close();
            }
        }

        @Override
        public String toString() {
            return String.valueOf(value);
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
                        Tagged t = (Tagged) o;
                        outbox.put(new Out(Wire.OUTPUT, t.ticket().inputId, t.seq(), t.value()));
                        t.ticket().finishOne();
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

        private Pipeline<Object> build(PipelineSpec spec) {
            EpochTokens source = new EpochTokens(this::nextItem);
            PipelineBuilder<Object> b = Pipeline.fromEpochs(source);
            for (int i = 0; i < spec.stages().size(); i++) {
                PipelineSpec.Stage stage = spec.stages().get(i);
                Function<Object, Object> fn = stage.createFunction();
                boolean last = i == spec.stages().size() - 1;   // its outputs go to the results ring
                b = switch (stage.kind()) {
                    case "map" -> b.map(stage.name(), (Object in) -> map(fn, (Tagged) in, last));
                    case "flatMap" -> b.flatMap(stage.name(), (Object in) -> flatMap(fn, (Tagged) in, last));
                    case "filter" -> b.filter(stage.name(), (Object in) -> filter(fn, (Tagged) in, last));
                    default -> throw new IllegalArgumentException("stage '" + stage.name() + "' kind: " + stage.kind()
                            + " (expected: map, flatMap or filter in a child process)");
                };
            }
            b = b.config(spec.config());
            if (trace != null) {
                b = b.trace(trace);
            }
            return b.build();
        }

        private Object map(Function<Object, Object> fn, Tagged in, boolean last) {
            Object out;
            try {
                out = fn.apply(in.value());
                if (last) {
                    requireFits(out, in);
                }
            } catch (RuntimeException | Error e) {
                failed(in, e);
                throw e;
            }
            if (out == null) {
                in.ticket().finishOne();
                return null;
            }
            return in.with(out);
        }

        private List<Tagged> flatMap(Function<Object, Object> fn, Tagged in, boolean last) {
            List<Tagged> outs = new ArrayList<>();
            try {
                Object result = fn.apply(in.value());
                if (result != null) {
                    int i = 0;
                    for (Object each : (Iterable<?>) result) {
                        i++;
                        if (each != null) {
                            if (i >= 1 << SEQ_BITS || in.seq() >= 1L << (63 - SEQ_BITS)) {
                                throw new IllegalStateException("flatMap output " + i + " of '" + in
                                        + "': more than 65535 outputs per item, or more than 3 flat-maps deep, cannot be numbered");
                            }
                            if (last) {
                                requireFits(each, in);
                            }
                            outs.add(new Tagged(in.ticket(), (in.seq() << SEQ_BITS) | i, each));
                        }
                    }
                }
            } catch (RuntimeException | Error e) {
                failed(in, e);
                throw e;
            }
            in.ticket().add(outs.size());
            in.ticket().finishOne();
            return outs;
        }

        private boolean filter(Function<Object, Object> fn, Tagged in, boolean last) {
            boolean keep;
            try {
                keep = Boolean.TRUE.equals(fn.apply(in.value()));
                if (keep && last) {
                    requireFits(in.value(), in);
                }
            } catch (RuntimeException | Error e) {
                failed(in, e);
                throw e;
            }
            if (!keep) {
                in.ticket().finishOne();
            }
            return keep;
        }

        /**
         * Fails an output too large for the results ring (a record never wraps, so it could never be sent) as
         * its input's failure, instead of leaving the writer stuck; the output is closed if it holds resources.
         */
        private void requireFits(Object out, Tagged in) {
            if (out == null) {
                return;
            }
            long bytes = outputCodec.encodedBytes(out);
            if (bytes > results.maxPayloadBytes()) {
                if (out instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (Exception ignored) {
                        // best effort: it is dropped either way
                    }
                }
                throw new OutputTooLargeException("output of '" + in.value() + "' encodes to " + bytes
                        + " bytes, more than the ring carries (" + results.maxPayloadBytes()
                        + " bytes; raise SubprocessOptions.ringBytes)");
            }
        }

        private void failed(Tagged in, Throwable e) {
            failedInputs.put(e, in.ticket().inputId);
            in.ticket().finishOne();
        }

        /** The items ring as tokens: items become Tagged, epoch ends and the end become the markers. */
        private Object nextItem() throws InterruptedException {
            SharedRing.Record r = new SharedRing.Record();
            Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
            while (!items.poll(r)) {
                backoff.idle();
            }
            try {
                return switch (r.type) {
                    case Wire.ITEM -> new Tagged(new Ticket(r.id, outbox), 0, inputCodec.decode(r.payload));
                    case Wire.EPOCH_END -> EpochTokens.EPOCH_END;
                    case Wire.END -> EpochTokens.END;
                    default -> throw new IllegalStateException("unknown record type " + r.type + " from the parent");
                };
            } finally {
                items.release();
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
                        if (out.type() == Wire.OUTPUT) {
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
            long bytes = outputCodec.encodedBytes(out.value());
            Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
            MemorySegment target;
            while ((target = results.tryClaim(Wire.OUTPUT, out.id(), out.seq(), bytes)) == null) {
                backoff.idle();
            }
            outputCodec.encode(out.value(), target);
            results.commit();
            if (out.value() instanceof AutoCloseable c) {
                try {
                    c.close();   // its bytes are in the ring: the child's copy is done
                } catch (Exception ignored) {
                    // best effort
                }
            }
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
