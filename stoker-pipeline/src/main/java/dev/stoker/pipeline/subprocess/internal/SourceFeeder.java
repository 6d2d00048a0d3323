package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.EpochSource;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The feeder thread's work: reads the pipeline's real source, epoch by epoch, into a small hand-off of
 * {@link SentEntry entries} (items, epoch ends, the end, or the source's error) that the supervisor takes
 * when the child has room. Its own thread, because a source may block (a directory listing, a network read).
 */
final class SourceFeeder implements Runnable {
    private final EpochSource<?> inputs;
    private final BlockingQueue<SentEntry> entries = new ArrayBlockingQueue<>(2);
    private volatile boolean closed;

    SourceFeeder(EpochSource<?> inputs) {
        this.inputs = inputs;
    }

    /** The next entry, or {@code null} when none is ready. */
    SentEntry poll() { return entries.poll(); }

    /** Stops reporting errors: the feeder's thread is being interrupted. */
    void close() {
        closed = true;
    }

    @Override
    public void run() {
        long id = 0;
        try {
            for (int epoch = 0; ; epoch++) {
                Iterable<?> epochItems = inputs.epoch(epoch);
                if (epochItems == null) {
                    break;
                }
                for (Object item : epochItems) {
                    if (item == null) {
                        throw new NullPointerException("source returned a null item (epoch " + epoch + ")");
                    }
                    entries.put(new SentEntry(id++, SentEntry.Kind.ITEM, epoch, item, null));
                }
                entries.put(new SentEntry(id++, SentEntry.Kind.EPOCH_END, epoch, null, null));
            }
            entries.put(new SentEntry(id, SentEntry.Kind.END, 0, null, null));
        } catch (InterruptedException e) {
            // closing
        } catch (Throwable t) {
            if (!closed) {
                try {
                    entries.put(new SentEntry(id, SentEntry.Kind.ERROR, 0, null, t));
                } catch (InterruptedException ignored) {
                    // closing
                }
            }
        }
    }
}
