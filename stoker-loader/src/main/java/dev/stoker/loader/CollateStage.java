package dev.stoker.loader;

import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Copies a batch's clips into one pooled batch buffer in the requested layout (a transpose for
 * NCTHW) and gives the one-clip buffers back. Waiting for a free batch buffer is how the consumer's
 * unreturned batches hold the loader back.
 */
public final class CollateStage<C extends CollatableClip> implements Function<List<C>, ClipBatch> {
    private final BatchPool batches;
    private final BiConsumer<ClipBatch, C> collated;

    /** {@code collated} hears of every batch made, with its last clip (for the loader's resume state). */
    public CollateStage(BatchPool batches, BiConsumer<ClipBatch, C> collated) {
        this.batches = batches;
        this.collated = collated;
    }

    @Override
    public ClipBatch apply(List<C> clips) {
        ClipBatch batch;
        try {
            batch = batches.acquire();
        } catch (InterruptedException e) {
            clips.forEach(C::close);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a batch buffer", e);
        }
        try {
            for (int i = 0; i < clips.size(); i++) {
                C clip = clips.get(i);
                double[] times = clip.decoded().ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray();
                clip.writeTo(batch, i, new ClipInfo(clip.sourcePath(), clip.label(), times, clip.decoded().decodedFrames(),
                        clip.leadFrames(), clip.text()));
            }
            if (!clips.isEmpty()) {
                collated.accept(batch, clips.getLast());
            }
            return batch;
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        } finally {
            clips.forEach(C::close);
        }
    }
}
