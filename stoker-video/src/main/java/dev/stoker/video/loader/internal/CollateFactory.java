package dev.stoker.video.loader.internal;

import dev.stoker.loader.CollateStage;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.loader.VideoLoader;
import java.util.List;
import java.util.function.Function;

/**
 * The collate stage as a {@link StageFactory}, for a child JVM ({@code stoker bench --split-after collate}):
 * it collates into a batch pool of its own and tags each batch with where it ends in the epoch
 * ({@link CollatedBatch}), which the parent's resume state needs. Config: the loader's options
 * ({@link LoaderOptions#toJson()}); the pool is sized by their {@link MemoryPlan}.
 */
public final class CollateFactory implements StageFactory<List<LoadedClip>, CollatedBatch> {

    @Override
    public Function<List<LoadedClip>, CollatedBatch> create(String config) {
        LoaderOptions options = LoaderOptions.fromJson(config);
        MemoryPlan plan = MemoryPlan.of(options, VideoLoader.defaultConfig(Runtime.getRuntime().availableProcessors()));
        BatchPool pool = new BatchPool(options.batchShape(), plan.childBatchPoolBytes());
        CollateStage<LoadedClip> collate = new CollateStage<>(pool, (batch, last) -> { });
        return clips -> {
            LoadedClip last = clips.getLast();   // its fields stay readable after collate closed it
            return new CollatedBatch(collate.apply(clips), last.task().epoch(), last.task().position(), last.clip(),
                    last.clipsOfVideo());
        };
    }
}
