package dev.stoker.pipeline.subprocess.internal;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * What the parent has sent the child and the child is not done with, in send order with the epoch ends, and
 * what to send next: entries to send again after a crash first, then fresh ones from the feeder. During
 * probation (after a crash, until every suspect is through) items go one at a time, so that a crash names its
 * culprit. Supervisor thread only.
 */
final class InFlightLedger {
    private final LinkedHashMap<Long, SentEntry> unacked = new LinkedHashMap<>();
    private final ArrayDeque<SentEntry> resend = new ArrayDeque<>();
    private final SourceFeeder feeder;
    private SentEntry nextFresh;
    private int inFlightInputs;
    /** Inputs the child was done with, over every child: progress, which ends a run of restarts. */
    private long doneCount;
    private boolean probation;

    InFlightLedger(SourceFeeder feeder) {
        this.feeder = feeder;
    }

    /** The entry to send next, or {@code null} when there is none now (probation holds fresh ones back). */
    SentEntry next() {
        SentEntry next;
        if (!resend.isEmpty()) {
            next = resend.peekFirst();
        } else {
            if (probation && inFlightInputs == 0) {
                probation = false;   // every suspect is through
            }
            if (probation) {
                return null;
            }
            if (nextFresh == null) {
                nextFresh = feeder.poll();
                if (nextFresh == null) {
                    return null;
                }
            }
            next = nextFresh;
        }
        if (next.kind == SentEntry.Kind.ITEM && probation && inFlightInputs > 0) {
            return null;
        }
        return next;
    }

    /** {@code entry} (from {@link #next}) is an error, not to be sent: it is done with. */
    void dropFresh() {
        nextFresh = null;
    }

    /** {@code entry}, from {@link #next}, is in the items ring. */
    void sent(SentEntry entry) {
        entry.sent = true;
        if (!resend.isEmpty() && resend.peekFirst() == entry) {
            resend.pollFirst();
        } else {
            unacked.put(entry.id, entry);
            nextFresh = null;
        }
        if (entry.kind == SentEntry.Kind.ITEM) {
            inFlightInputs++;
        }
    }

    /** Whether the output {@code seq} of input {@code id} is new (not handed on before a crash). */
    boolean firstDelivery(long id, long seq) {
        SentEntry e = unacked.get(id);
        return e != null && e.firstDelivery(seq);
    }

    /** Every descendant of input {@code id} still in the child waits in a batch stage. */
    void settled(long id) {
        SentEntry e = unacked.get(id);
        if (e != null && e.sent && !e.settled) {
            e.settled = true;
            inFlightInputs--;
        }
    }

    /** Inputs the child was done with so far, over every child it had. */
    long doneCount() { return doneCount; }

    /** The child is done with input {@code id}. */
    void done(long id) {
        SentEntry e = unacked.remove(id);
        if (e != null) {
            doneCount++;
        }
        if (e != null && !e.settled) {
            inFlightInputs--;
        }
    }

    /** The child passed on the oldest epoch end (or the end): forget it. */
    void markerDone() {
        Iterator<SentEntry> it = unacked.values().iterator();
        while (it.hasNext()) {
            if (it.next().kind != SentEntry.Kind.ITEM) {
                it.remove();
                return;
            }
        }
    }

    /** Items the dead child was working on (sent, not settled): the crash's suspects. */
    List<SentEntry> suspects() {
        return unacked.values().stream().filter(e -> e.kind == SentEntry.Kind.ITEM && e.sent && !e.settled).toList();
    }

    /** Gives up on {@code culprit}: it is not sent again. */
    void quarantine(SentEntry culprit) {
        unacked.remove(culprit.id);
    }

    /** After a restart: everything unacked goes again, in order, items on probation. */
    void resendAll() {
        resend.clear();
        for (SentEntry e : unacked.values()) {
            e.sent = false;
            e.settled = false;
            resend.add(e);
        }
        probation = resend.stream().anyMatch(e -> e.kind == SentEntry.Kind.ITEM);
        inFlightInputs = 0;
    }

    /** Entries not yet done with, for release at close. */
    Collection<SentEntry> unacked() { return unacked.values(); }
}
