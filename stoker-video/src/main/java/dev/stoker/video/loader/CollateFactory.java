package dev.stoker.video.loader;

import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.batch.BatchPool;
import java.util.List;
import java.util.function.Function;

/**
 * The collate stage as a {@link StageFactory}, for a child JVM ({@code stoker bench --split-after collate}):
 * it collates into a batch pool of its own and tags each batch with where it ends in the epoch
 * ({@link CollatedBatch}), which the parent's resume state needs. Config ({@link #config}): the loader's
 * options (for the batch geometry) and the pool's budget.
 */
public final class CollateFactory implements StageFactory<List<LoadedClip>, CollatedBatch> {

    /** The config string for batches of {@code options} and a pool of {@code poolBytes}. */
    static String config(LoaderOptions options, long poolBytes) {
        return PooledStageConfig.write(options, poolBytes);
    }

    @Override
    public Function<List<LoadedClip>, CollatedBatch> create(String config) {
        PooledStageConfig c = PooledStageConfig.read(config);
        BatchPool pool = new BatchPool(c.options().batchShape(), c.poolBytes());
        CollateStage collate = new CollateStage(pool, (batch, last) -> { });
        return clips -> {
            LoadedClip last = clips.getLast();   // its fields stay readable after collate closed it
            return new CollatedBatch(collate.apply(clips), last.task().epoch(), last.task().position(), last.clip(),
                    last.clipsOfVideo());
        };
    }
}
