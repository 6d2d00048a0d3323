package dev.stoker.pipeline.subprocess.internal;

import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts an input's descendants in flight inside the child: the live ones (not yet written to the results ring,
 * dropped or failed; at zero the input is done) and, of those, the unsettled ones, which are not yet with a batch
 * stage either (at zero, while batches still hold some, the input is settled: the parent may send the next one
 * during probation, and a crash is not its fault). {@code skipSeqs} are the sequences of outputs the parent
 * already has (an input sent again after a crash): they are dropped, not sent twice or batched again.
 */
final class InputTicket {
    final long inputId;
    private final long[] skipSeqs;
    private final AtomicInteger live = new AtomicInteger(1);
    private final AtomicInteger unsettled = new AtomicInteger(1);
    private final BlockingQueue<Outbound> outbox;

    InputTicket(long inputId, long[] skipSeqs, BlockingQueue<Outbound> outbox) {
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
            outbox.put(Outbound.control(type, inputId, null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
