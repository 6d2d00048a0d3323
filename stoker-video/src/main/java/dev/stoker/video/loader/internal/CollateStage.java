package dev.stoker.video.loader.internal;

import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.loader.internal.LoadedClip;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Copies a batch's clips into one pooled batch buffer in the requested layout (a transpose for
 * NCTHW) and gives the one-clip buffers back. Waiting for a free batch buffer is how the consumer's
 * unreturned batches hold the loader back.
 */
public final class CollateStage implements Function<List<LoadedClip>, ClipBatch> {
    private final BatchPool batches;
    private final BiConsumer<ClipBatch, LoadedClip> collated;

    /** {@code collated} hears of every batch made, with its last clip (for the loader's resume state). */
    public CollateStage(BatchPool batches, BiConsumer<ClipBatch, LoadedClip> collated) {
        this.batches = batches;
        this.collated = collated;
    }

    @Override
    public ClipBatch apply(List<LoadedClip> clips) {
        ClipBatch batch;
        try {
            batch = batches.acquire();
        } catch (InterruptedException e) {
            clips.forEach(LoadedClip::close);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a batch buffer", e);
        }
        try {
            for (int i = 0; i < clips.size(); i++) {
                LoadedClip clip = clips.get(i);
                double[] times = clip.decoded().ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray();
                ClipInfo info = new ClipInfo(clip.task().entry().path(), clip.task().entry().label(), times,
                        clip.decoded().decodedFrames());
                BatchCollator.put(batch, i, BatchCollator.slot(clip.pixels(), 0), info);
            }
            if (!clips.isEmpty()) {
                collated.accept(batch, clips.getLast());
            }
            return batch;
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        } finally {
            clips.forEach(LoadedClip::close);
        }
    }
}
