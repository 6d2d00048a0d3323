package dev.stoker.pipeline.subprocess.internal;

/**
 * A value descended from one input: one unit of the input's {@link InputTicket}, numbered by {@code seq} the
 * same way on every run of the child (16 bits per flat-map level). The unit ends once: {@link #finish}
 * (written, dropped, failed, or discarded by {@link #close}), or handed to a successor ({@link #with}: a map's
 * output carries it on). Touched by one thread at a time (the engine's queues order the hand-offs).
 */
final class ItemLineage implements Lineage {
    private static final int SEQ_BITS = 16;

    final InputTicket ticket;
    final long seq;
    private final Object value;
    private boolean settled;
    private boolean ended;

    ItemLineage(InputTicket ticket, long seq, Object value) {
        this.ticket = ticket;
        this.seq = seq;
        this.value = value;
    }

    @Override
    public Object value() { return value; }

    @Override
    public ItemLineage with(Object next) {
        ended = true;
        ItemLineage carried = new ItemLineage(ticket, seq, next);
        carried.settled = settled;
        return carried;
    }

    /**
     * The {@code index}-th output (from 1) of a flat-map over this value; the caller adds the new units to the
     * ticket before this one ends.
     */
    ItemLineage child(int index, Object output) {
        if (index >= 1 << SEQ_BITS || seq >= 1L << (63 - SEQ_BITS)) {
            throw new IllegalStateException("flatMap output " + index + " of '" + this
                    + "': more than 65535 outputs per item, or more than 3 flat-maps deep, cannot be numbered");
        }
        return new ItemLineage(ticket, (seq << SEQ_BITS) | index, output);
    }

    /**
     * Hands this to a batch stage, or ends it here when the parent already has it (it was batched and delivered
     * before a crash: batching it again would repeat it). False when dropped.
     */
    boolean enterBatch() {
        if (alreadyDelivered()) {
            close();
            return false;
        }
        if (!settled && !ended) {
            settled = true;
            ticket.settleOne();
        }
        return true;
    }

    @Override
    public void finish() {
        if (!ended) {
            ended = true;
            ticket.finishOne(settled);
        }
    }

    @Override
    public long blamedInputId() { return ticket.inputId; }

    @Override
    public long prefixBytes() { return 0; }

    @Override
    public boolean alreadyDelivered() {
        return ticket.skips(seq);
    }

    @Override
    public Outbound outbound() {
        return new Outbound(Wire.OUTPUT, ticket.inputId, seq, value, java.util.List.of());
    }

    @Override
    public String toString() {
        return String.valueOf(value);
    }
}
