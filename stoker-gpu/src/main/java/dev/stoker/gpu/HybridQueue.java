package dev.stoker.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * The one queue both pools of a hybrid loader take videos from. Each pool takes when one of its workers is free, so
 * each runs at its own rate; what it takes is routed by cost (decoded frames times pixels): an NVDEC session takes
 * the costliest video waiting, a CPU worker the cheapest, so high-resolution and long-GOP videos go to NVDEC, whose
 * cost per frame grows least with size, and Kinetics-sized ones fill the CPU. Among equal costs, the oldest first.
 * Thread-safe; {@link #poll} is the same choice without waiting, for a model clock.
 *
 * @param <T> what is queued
 */
final class HybridQueue<T> {
    /** Which pool takes. */
    enum Pool { NVDEC, CPU }

    private record Entry<T>(T item, double cost, long order) {
    }

    private final List<Entry<T>> waiting = new ArrayList<>();
    private long order;
    private boolean closed;

    /** Queues {@code item} of {@code cost}. */
    synchronized void put(T item, double cost) {
        if (closed) {
            throw new IllegalStateException("hybrid decode queue is closed");
        }
        waiting.add(new Entry<>(item, cost, order++));
        notifyAll();
    }

    /** The item {@code pool} takes next, waiting for one; null once closed. */
    synchronized T take(Pool pool) throws InterruptedException {
        while (waiting.isEmpty() && !closed) {
            wait();
        }
        return poll(pool);
    }

    /** The item {@code pool} takes now, or null when none waits. */
    synchronized T poll(Pool pool) {
        if (waiting.isEmpty()) {
            return null;
        }
        int best = 0;
        for (int i = 1; i < waiting.size(); i++) {
            Entry<T> e = waiting.get(i);
            Entry<T> b = waiting.get(best);
            boolean better = pool == Pool.NVDEC ? e.cost() > b.cost() : e.cost() < b.cost();
            if (better || (e.cost() == b.cost() && e.order() < b.order())) {
                best = i;
            }
        }
        return waiting.remove(best).item();
    }

    /** Takes {@code item} back if no pool took it yet; true if it did. */
    synchronized boolean remove(T item) {
        return waiting.removeIf(e -> e.item() == item);
    }

    synchronized int size() { return waiting.size(); }

    /** Wakes every taker; later takes return null once the queue is empty. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }
}
