package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.pipeline.internal.Resources;
import dev.stoker.pipeline.subprocess.ItemCodec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The results ring's one writer, in the child: outputs and control records from the outbox, in order, and every
 * {@code reportMillis} a report (the stages' stats, new failures with the inputs they are blamed on, trace
 * slices). A report goes before the last record, so that failures before the end reach the parent first.
 */
final class ResultsWriter implements Runnable {
    private final SharedRing results;
    private final ItemCodec<Object> codec;
    private final BlockingQueue<Outbound> outbox;
    private final long reportNanos;
    private final Supplier<Pipeline<Object>> pipeline;
    private final Map<Throwable, Long> failedInputs;
    private final TraceRecorder trace;
    private int failuresReported;
    private long traceRead;

    ResultsWriter(SharedRing results, ItemCodec<Object> codec, BlockingQueue<Outbound> outbox, long reportMillis,
                  Supplier<Pipeline<Object>> pipeline, Map<Throwable, Long> failedInputs, TraceRecorder trace) {
        this.results = results;
        this.codec = codec;
        this.outbox = outbox;
        this.reportNanos = TimeUnit.MILLISECONDS.toNanos(reportMillis);
        this.pipeline = pipeline;
        this.failedInputs = failedInputs;
        this.trace = trace;
    }

    @Override
    public void run() {
        long nextReport = System.nanoTime() + reportNanos;
        try {
            while (true) {
                Outbound out = outbox.poll(Math.max(1, nextReport - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (out != null) {
                    if (out.endsTheRun()) {
                        writeNow(Wire.REPORT, 0, 0, report());
                    }
                    if (out.isOutput()) {
                        writeOutput(out);
                    } else {
                        byte[] payload = out.value() == null ? new byte[0] : Wire.utf8(String.valueOf(out.value()));
                        writeNow(out.type(), out.id(), out.seq(), payload);
                    }
                    if (out.endsTheRun()) {
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

    private void writeOutput(Outbound out) throws InterruptedException {
        int members = out.members().size();
        long prefix = out.type() == Wire.GROUP_OUTPUT ? Wire.groupPrefixBytes(members) : 0;
        long bytes = prefix + codec.encodedBytes(out.value());
        MemorySegment target = claim(out.type(), out.id(), out.seq(), bytes);
        if (prefix > 0) {
            long[] ids = new long[members];
            long[] seqs = new long[members];
            for (int i = 0; i < members; i++) {
                ids[i] = out.members().get(i).ticket.inputId;
                seqs[i] = out.members().get(i).seq;
            }
            Wire.writeGroupPrefix(target, ids, seqs);
        }
        codec.encode(out.value(), target.asSlice(prefix));
        results.commit();
        Resources.release(out.value());   // its bytes are in the ring: the child's copy is done
    }

    /** Writes one record, waiting for room; also before the writer thread starts (the hello, a fatal error). */
    void writeNow(int type, long id, long seq, byte[] payload) throws InterruptedException {
        MemorySegment target = claim(type, id, seq, payload.length);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, target, 0, payload.length);
        results.commit();
    }

    private MemorySegment claim(int type, long id, long seq, long bytes) throws InterruptedException {
        Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(1));
        MemorySegment target;
        while ((target = results.tryClaim(type, id, seq, bytes)) == null) {
            backoff.idle();
        }
        return target;
    }

    private byte[] report() {
        List<StageStats> stages = List.of();
        List<Wire.ChildFailure> newFailures = new ArrayList<>();
        List<Wire.ChildSlice> slices = new ArrayList<>();
        Pipeline<Object> p = pipeline.get();
        if (p != null) {
            List<StageStats> all = p.stats().stages();
            stages = all.subList(1, all.size());   // without the child's source (the items ring)
            List<Failure> failures = p.failures();
            for (int i = failuresReported; i < failures.size(); i++) {
                Failure f = failures.get(i);
                Throwable c = f.cause();
                Long inputId = failedInputs.remove(c);
                newFailures.add(new Wire.ChildFailure(f.stage(), inputId == null ? -1 : inputId, f.item(), f.reason(),
                        c.getClass().getName(), c.getMessage(), f.timestampMillis()));
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
}
