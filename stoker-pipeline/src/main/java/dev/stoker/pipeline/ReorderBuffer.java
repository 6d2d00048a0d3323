package dev.stoker.pipeline;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Restores input order for a stage with several workers. Each input carries its take ticket; results
 * are parked in a ring until every earlier ticket has been emitted. One completing worker at a time
 * drains the ready prefix downstream (so emission order is ticket order even while it blocks on a full
 * queue), and the window semaphore stops workers taking input more than {@code window} tickets ahead
 * of the oldest unemitted one, which bounds the parked results when one task is slow.
 */
final class ReorderBuffer {
    interface Emitter {
        void emit(Object element) throws InterruptedException;
    }

    private final Object[] parked;
    private final boolean[] ready;
    private final Semaphore window;
    private final ReentrantLock lock = new ReentrantLock();
    private long nextToEmit;
    private boolean emitting;

    ReorderBuffer(int window) {
        this.parked = new Object[window];
        this.ready = new boolean[window];
        this.window = new Semaphore(window);
    }

    /** Called before taking an input: waits while the window is full. */
    void acquireSlot() throws InterruptedException {
        window.acquire();
    }

    /** Gives back a slot taken for an input that never came (the queue finished). */
    void releaseUnusedSlot() {
        window.release();
    }

    /** Parks {@code outputs} for {@code ticket}, then emits the ready prefix if no one else is. */
    void complete(long ticket, List<?> outputs, Emitter emitter) throws InterruptedException {
        int slot = (int) (ticket % parked.length);
        lock.lock();
        try {
            parked[slot] = List.copyOf(outputs);
            ready[slot] = true;
            if (emitting || ticket != nextToEmit) {
                return;
            }
            emitting = true;
        } finally {
            lock.unlock();
        }
        boolean done = false;
        try {
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
                for (int i = 0; i < batch.size(); i++) {
                    try {
                        emitter.emit(batch.get(i));
                    } catch (InterruptedException | RuntimeException e) {
                        for (int j = i; j < batch.size(); j++) {
                            Envelope.release(batch.get(j));
                        }
                        throw e;
                    }
                }
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
