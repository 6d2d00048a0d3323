package dev.stoker.pipeline.internal;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Restores input order for a stage that keeps it. Each input carries its take ticket; results are parked
 * in a ring until every earlier ticket has been emitted. One completing worker at a time drains the ready
 * prefix downstream (so emission order is ticket order even while it blocks on a full queue), and the
 * window semaphore stops workers taking input more than {@code window} tickets ahead of the oldest
 * unemitted one, which bounds the parked results when one task is slow.
 *
 * <p>A result that is next in order is emitted at once, without being parked or copied, so a stage with
 * one worker pays a few uncontended lock operations per item; that is what lets every ordered stage have
 * a buffer, and so change its number of workers while it runs. The window grows with the stage
 * ({@link #ensureWindow}); it never shrinks (a larger window only allows more parked results).
 */
public final class ReorderBuffer {
    interface Emitter {
        void emit(Object element) throws InterruptedException;
    }

    private Object[] parked;      // under lock; slot of ticket t: t % parked.length
    private boolean[] ready;
    private final Semaphore window;
    private final ReentrantLock lock = new ReentrantLock();
    private long nextToEmit;
    private boolean emitting;

    ReorderBuffer(int window) {
        this.parked = new Object[window];
        this.ready = new boolean[window];
        this.window = new Semaphore(window);
    }

    /** The window a stage of {@code concurrency} workers and an input queue of {@code queueCapacity} gets. */
    public static int windowFor(int concurrency, int queueCapacity) {
        return Math.max(4 * concurrency, concurrency + queueCapacity);
    }

    /** Called before taking an input: waits while the window is full. */
    void acquireSlot() throws InterruptedException {
        window.acquire();
    }

    /** Gives back a slot taken for an input that never came (the queue finished, or the worker retired). */
    void releaseUnusedSlot() {
        window.release();
    }

    /** Tickets the window allows ahead of the oldest unemitted one. */
    int window() {
        lock.lock();
        try {
            return parked.length;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Widens the window to at least {@code size} tickets (a stage given more workers). Every outstanding
     * ticket lies in [nextToEmit, nextToEmit + old window), so re-slotting that range moves every parked
     * result; then the new slots' permits are released.
     */
    void ensureWindow(int size) {
        int added;
        lock.lock();
        try {
            int old = parked.length;
            if (size <= old) {
                return;
            }
            Object[] newParked = new Object[size];
            boolean[] newReady = new boolean[size];
            for (long t = nextToEmit; t < nextToEmit + old; t++) {
                int from = (int) (t % old);
                int to = (int) (t % size);
                newParked[to] = parked[from];
                newReady[to] = ready[from];
            }
            parked = newParked;
            ready = newReady;
            added = size - old;
        } finally {
            lock.unlock();
        }
        window.release(added);
    }

    /**
     * Emits {@code outputs} for {@code ticket} if it is next and no one else is emitting, then the ready
     * prefix; otherwise parks a copy of them for whoever emits the ticket before.
     */
    void complete(long ticket, List<?> outputs, Emitter emitter) throws InterruptedException {
        lock.lock();
        try {
            if (emitting || ticket != nextToEmit) {
                int slot = (int) (ticket % parked.length);
                parked[slot] = List.copyOf(outputs);
                ready[slot] = true;
                return;
            }
            emitting = true;
            nextToEmit++;
        } finally {
            lock.unlock();
        }
        boolean done = false;
        try {
            emitAll(outputs, emitter);
            window.release();
            while (true) {
                List<?> batch;
                lock.lock();
                try {
                    int head = (int) (nextToEmit % parked.length);
                    if (!ready[head]) {
                        emitting = false;
                        done = true;
                        return;
                    }
                    batch = (List<?>) parked[head];
                    parked[head] = null;
                    ready[head] = false;
                    nextToEmit++;
                } finally {
                    lock.unlock();
                }
                emitAll(batch, emitter);
                window.release();
            }
        } finally {
            if (!done) {
                lock.lock();
                try {
                    emitting = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Emits every element; when one fails, releases it and those after it (they will never be emitted). */
    private static void emitAll(List<?> elements, Emitter emitter) throws InterruptedException {
        for (int i = 0; i < elements.size(); i++) {
            try {
                emitter.emit(elements.get(i));
            } catch (InterruptedException | RuntimeException e) {
                for (int j = i; j < elements.size(); j++) {
                    Envelope.release(elements.get(j));
                }
                throw e;
            }
        }
    }

    /** Everything parked, for release when the pipeline closes. */
    List<Object> drain() {
        lock.lock();
        try {
            List<Object> left = new java.util.ArrayList<>();
            for (int i = 0; i < parked.length; i++) {
                if (parked[i] instanceof List<?> l) {
                    left.addAll(l);
                }
                parked[i] = null;
                ready[i] = false;
            }
            return left;
        } finally {
            lock.unlock();
        }
    }
}
