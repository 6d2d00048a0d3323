package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.internal.Resources;
import dev.stoker.pipeline.subprocess.ItemCodec;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The supervisor thread's work: it owns both rings and the child. It hands results on to the pipeline (through
 * the hand-off its source thread reads), writes the next entries into the items ring, and when the child dies,
 * has {@link CrashRecovery} restart it. Delivery is exactly once for what reaches the consumer: an output whose
 * (input, sequence) was handed on before a crash is dropped.
 */
final class ChildSupervisor implements Runnable {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SharedRing items;
    private final SharedRing results;
    private final ItemCodec<Object> inputCodec;
    private final ItemCodec<Object> outputCodec;
    private final InFlightLedger ledger;
    private final ChildLauncher launcher;
    private final CrashRecovery recovery;
    private final ChildReports reports;
    private final BlockingQueue<Object> handoff;
    private final ArrayDeque<Object> toDeliver = new ArrayDeque<>();
    private final SharedRing.Record record = new SharedRing.Record();
    private boolean streamEnded;
    private boolean fatal;
    private volatile boolean closed;

    ChildSupervisor(SharedRing items, SharedRing results, ItemCodec<Object> inputCodec, ItemCodec<Object> outputCodec,
                    InFlightLedger ledger, ChildLauncher launcher, CrashRecovery recovery, ChildReports reports,
                    BlockingQueue<Object> handoff) {
        this.items = items;
        this.results = results;
        this.inputCodec = inputCodec;
        this.outputCodec = outputCodec;
        this.ledger = ledger;
        this.launcher = launcher;
        this.recovery = recovery;
        this.reports = reports;
        this.handoff = handoff;
    }

    @Override
    public void run() {
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
                if (!fatal && !streamEnded && !launcher.isAlive()
                        && toDeliver.isEmpty() && results.bytesInFlight() == 0) {   // what it published is handled
                    PipelineFailedException failure = recovery.recover();
                    if (failure != null) {
                        fail(failure);
                    }
                    continue;
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
                handoff.offer(reports.runFailure("the child process supervisor failed: " + t, t));
            }
        }
    }

    /** Stops the loop (its thread is being interrupted). */
    void close() {
        closed = true;
    }

    /** Results read but not handed on, for release at close (after the thread has ended). */
    Iterable<Object> undelivered() { return toDeliver; }

    private void fail(PipelineFailedException failure) {
        fatal = true;
        toDeliver.add(failure);
    }

    /** Sends the next entry if there is room; false when there is nothing to send now. */
    private boolean send() {
        SentEntry next = ledger.next();
        if (next == null) {
            return false;
        }
        if (next.kind == SentEntry.Kind.ERROR) {
            ledger.dropFresh();
            fail(reports.runFailure("source failed: " + next.error, next.error));
            return true;
        }
        if (!write(next)) {
            return false;
        }
        ledger.sent(next);
        return true;
    }

    private boolean write(SentEntry e) {
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
                    throw new IllegalStateException("codec " + inputCodec.name() + " cannot encode item '"
                            + Resources.describe(e.value) + "': " + ex, ex);
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
                if (ledger.firstDelivery(r.id, r.seq)) {
                    deliver(outputCodec.decode(r.payload));
                }
            }
            case Wire.GROUP_OUTPUT -> {
                int members = Wire.groupMembers(r.payload);
                boolean fresh = false;
                boolean repeated = false;
                for (int i = 0; i < members; i++) {
                    if (ledger.firstDelivery(Wire.groupMemberInputId(r.payload, i), Wire.groupMemberSeq(r.payload, i))) {
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
                    deliver(outputCodec.decode(r.payload.asSlice(Wire.groupPrefixBytes(members))));
                }
            }
            case Wire.SETTLED -> ledger.settled(r.id);
            case Wire.DONE -> ledger.done(r.id);
            case Wire.EPOCH_END, Wire.END -> {
                ledger.markerDone();
                toDeliver.add(r.type == Wire.END ? EpochTokens.END : EpochTokens.EPOCH_END);
                if (r.type == Wire.END) {
                    streamEnded = true;
                }
            }
            case Wire.REPORT -> reports.accept(Wire.utf8(r.payload));
            case Wire.FATAL -> fail(reports.runFailure("the child's stages failed: " + Wire.utf8(r.payload), null));
            case Wire.HELLO -> { }
            default -> throw new IllegalStateException("unknown record type " + r.type + " from the child");
        }
    }

    private void deliver(Object value) {
        if (value != null) {
            toDeliver.add(value);
        }
    }
}
