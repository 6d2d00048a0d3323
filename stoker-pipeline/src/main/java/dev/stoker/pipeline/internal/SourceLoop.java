package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.QueueStats;
import dev.stoker.pipeline.StageStats;
import dev.stoker.pipeline.TraceRecorder;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The source thread's work: reads the source epoch by epoch into the first queue, with an epoch end after each
 * epoch (when the source has epochs) and the end of the stream last. Shown in the stats as a pseudo-stage
 * {@code source}: its busy time is reading the source, its back-pressured time waiting for room.
 */
final class SourceLoop implements Runnable {
    private static final long TIME_EVERY_ITEM_ABOVE_NANOS = 20_000;

    private final PipelineRuntime runtime;
    private final SourceSpec source;
    private final BoundedQueue first;
    final WorkerClock clock = new WorkerClock();
    private final LongAdder items = new LongAdder();
    private final TaskTimes times = new TaskTimes();

    SourceLoop(PipelineRuntime runtime, SourceSpec source, BoundedQueue first) {
        this.runtime = runtime;
        this.source = source;
        this.first = first;
    }

    /** Items read from the source so far. */
    long items() { return items.sum(); }

    @Override
    public void run() {
        Thread self = Thread.currentThread();
        TraceRecorder trace = runtime.trace;
        long lastNanos = Long.MAX_VALUE;
        int untimed = 0;
        try {
            for (int epoch = 0; ; epoch++) {
                clock.enter(WorkerClock.BUSY);
                Iterator<?> epochItems = source.open(epoch);
                if (epochItems == null) {
                    break;
                }
                while (true) {
                    clock.enter(WorkerClock.BUSY);
                    boolean timed = trace != null || lastNanos > TIME_EVERY_ITEM_ABOVE_NANOS || (++untimed & 7) == 0;
                    long start = timed ? System.nanoTime() : 0;
                    if (!epochItems.hasNext()) {
                        break;
                    }
                    Object value = epochItems.next();
                    if (value == null) {
                        throw new NullPointerException("source returned a null item (epoch " + epoch + ")");
                    }
                    Envelope envelope = new Envelope(runtime.nextId(), epoch, value);
                    if (timed) {
                        lastNanos = System.nanoTime() - start;
                        times.recordNanos(lastNanos);
                        if (trace != null) {
                            trace.slice("source", self, start, lastNanos, envelope.id);
                        }
                    }
                    clock.enter(WorkerClock.BACK_PRESSURED);
                    first.put(envelope);
                    items.increment();
                }
                if (source.epochMarkers()) {
                    clock.enter(WorkerClock.BACK_PRESSURED);
                    first.put(new Marker.EpochEnd(epoch));
                }
            }
            clock.enter(WorkerClock.BACK_PRESSURED);
            first.put(Marker.END);
        } catch (InterruptedException | BoundedQueue.ClosedException e) {
            // closing
        } catch (PipelineFailedException e) {
            if (!runtime.isClosing()) {
                runtime.fail(e);   // from hosted stages: already names where and why
            }
        } catch (Throwable t) {
            if (!runtime.isClosing()) {
                runtime.fail(new PipelineFailedException("source failed: " + t, List.of("source"), List.of(), t));
            }
        } finally {
            clock.enter(WorkerClock.IDLE);
        }
    }

    /** The source as a pseudo-stage. */
    StageStats snapshot() {
        long[] t = clock.read();
        double total = Math.max(1, t[0] + t[1] + t[2]);
        long emitted = items.sum();
        boolean hosted = runtime.hosted != null;
        // Fed by hosted stages, the source's "work" is waiting for their next output: idle time, not a
        // saturated stage (the hosted stages' own stats say which of them is busy).
        double busy = hosted ? 0 : t[WorkerClock.BUSY] / total;
        double idle = hosted ? (t[WorkerClock.BUSY] + t[WorkerClock.IDLE]) / total : t[WorkerClock.IDLE] / total;
        return new StageStats("source", "source", 1, emitted, emitted, 0, 0, 0,
                busy, idle, t[WorkerClock.BACK_PRESSURED] / total, times.snapshot(), new QueueStats(0, 0, 0, 0, 0));
    }
}
