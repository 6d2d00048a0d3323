package dev.stoker.jmh;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The baseline the engine is measured against: the same topology as a {@code Pipeline}, wired by hand with
 * platform threads and {@link ArrayBlockingQueue}s and nothing else — a producer thread reading the source
 * into the first stage's queue, {@code workers} threads per stage taking from its queue and putting into the
 * next, and the caller taking from the last ("sink") queue. No ids, stats, ordering, markers or failure
 * handling: the floor a general engine pays for those.
 */
final class HandWiredChain<R> implements AutoCloseable {
    /** Ends the stream; each stage forwards it once its last worker has seen it. */
    private static final Object END = new Object();

    private final List<Thread> threads = new ArrayList<>();
    private final BlockingQueue<Object> sink;

    /**
     * @param source     read by the producer thread
     * @param stages     one function per stage
     * @param workers    threads per stage
     * @param capacities input-queue capacity per stage
     * @param sinkCapacity capacity of the queue the caller takes from
     */
    HandWiredChain(Iterator<?> source, List<Function<Object, Object>> stages, int workers, int[] capacities,
                   int sinkCapacity) {
        List<BlockingQueue<Object>> queues = new ArrayList<>();
        for (int capacity : capacities) {
            queues.add(new ArrayBlockingQueue<>(capacity));
        }
        sink = new ArrayBlockingQueue<>(sinkCapacity);
        queues.add(sink);
        BlockingQueue<Object> first = queues.getFirst();
        threads.add(Thread.ofPlatform().name("hand-source").daemon(true).unstarted(() -> {
            try {
                while (source.hasNext()) {
                    first.put(source.next());
                }
                first.put(END);
            } catch (InterruptedException e) {
                // closing
            }
        }));
        for (int s = 0; s < stages.size(); s++) {
            Function<Object, Object> fn = stages.get(s);
            BlockingQueue<Object> in = queues.get(s);
            BlockingQueue<Object> out = queues.get(s + 1);
            AtomicInteger running = new AtomicInteger(workers);
            for (int w = 0; w < workers; w++) {
                threads.add(Thread.ofPlatform().name("hand-" + s + "-" + w).daemon(true).unstarted(() -> {
                    try {
                        while (true) {
                            Object item = in.take();
                            if (item == END) {
                                if (running.decrementAndGet() == 0) {
                                    out.put(END);
                                } else {
                                    in.put(END); // let the sibling workers see it too
                                }
                                return;
                            }
                            out.put(fn.apply(item));
                        }
                    } catch (InterruptedException e) {
                        // closing
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
    }

    /** The next result, or {@code null} at the end of the stream. */
    @SuppressWarnings("unchecked")
    R take() throws InterruptedException {
        Object item = sink.take();
        return item == END ? null : (R) item;
    }

    @Override
    public void close() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            t.join();
        }
    }
}
