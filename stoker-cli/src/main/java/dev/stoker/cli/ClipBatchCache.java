package dev.stoker.cli;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.tune.internal.BatchCache;
import dev.stoker.tune.TensorBatch;
import java.lang.foreign.Arena;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Headspace's cache for the video loader: the step sees a {@link ClipBatch} as a {@link TensorBatch}
 * (a view, no copy); a cached copy lives in its own shared arena, so the pooled batch goes back to the
 * loader at once, and the arena is closed when the copy is released.
 */
final class ClipBatchCache implements BatchCache<ClipBatch, TensorBatch> {
    private final Map<TensorBatch, Arena> arenas = new IdentityHashMap<>();

    @Override
    public TensorBatch view(ClipBatch batch) {
        return new TensorBatch(batch.data(), batch.shape(), batch.labels());
    }

    @Override
    public TensorBatch copy(ClipBatch batch) {
        Arena arena = Arena.ofShared();
        TensorBatch copy = view(batch).copyInto(arena);
        arenas.put(copy, arena);
        return copy;
    }

    @Override
    public void release(ClipBatch batch) {
        batch.close();
    }

    @Override
    public void releaseCopy(TensorBatch copy) {
        Arena arena = arenas.remove(copy);
        if (arena != null) {
            arena.close();
        }
    }
}
