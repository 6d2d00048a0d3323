package dev.stoker.loader;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts {@link ClipStartStats} over the batches handed out (their {@link ClipInfo}s cross every process
 * boundary, so the count holds wherever the clips were decoded), and says so when the first batch holds no clip
 * within the decode budget: a budget no video of it can meet is worth a line before training on it.
 */
final class ClipStartCounter {
    private static final System.Logger LOG = System.getLogger(ClipStartCounter.class.getName());

    private final int maxLeadFrames;
    private final LongAdder clips = new LongAdder();
    private final LongAdder clipsWithLead = new LongAdder();
    private final LongAdder leadFrames = new LongAdder();
    private final LongAdder fallbackClips = new LongAdder();
    private final AtomicBoolean firstBatchSeen = new AtomicBoolean();

    ClipStartCounter(int maxLeadFrames) {
        this.maxLeadFrames = maxLeadFrames;
    }

    /** {@code batches}, counting each batch's clips as it is handed out. */
    Iterator<ClipBatch> counting(Iterator<ClipBatch> batches) {
        return new OnEachHandedOut<>(batches, this::count);
    }

    private void count(ClipBatch batch) {
        long over = 0;
        long known = 0;
        long leads = 0;
        for (ClipInfo c : batch.clips()) {
            if (c.leadFrames() >= 0) {
                known++;
                leads += c.leadFrames();
                if (maxLeadFrames >= 0 && c.leadFrames() > maxLeadFrames) {
                    over++;
                }
            }
        }
        clips.add(batch.clips().size());
        clipsWithLead.add(known);
        leadFrames.add(leads);
        fallbackClips.add(over);
        if (maxLeadFrames >= 0 && known > 0 && over == known && firstBatchSeen.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, String.format(Locale.ROOT, "maxLeadFrames %d: no clip of the first batch"
                    + " starts within %d frames of a keyframe: their videos have no such start, so each clip starts at its"
                    + " video's cheapest one (%.1f frames of lead on average); the budget may be too small for this dataset",
                    maxLeadFrames, maxLeadFrames, (double) leads / known));
        }
        firstBatchSeen.set(true);
    }

    ClipStartStats stats() {
        return new ClipStartStats(maxLeadFrames, clips.sum(), clipsWithLead.sum(), leadFrames.sum(), fallbackClips.sum());
    }
}
