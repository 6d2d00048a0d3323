package dev.stoker.video.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import java.util.List;
import java.util.function.Function;

/**
 * The collate stage as a {@link StageFactory}, for a child JVM ({@code stoker bench --split-after collate}):
 * it collates into a batch pool of its own and tags each batch with where it ends in the epoch
 * ({@link CollatedBatch}), which the parent's resume state needs. Config ({@link #config}): the batch
 * geometry and the pool's budget.
 */
public final class CollateFactory implements StageFactory<List<LoadedClip>, CollatedBatch> {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Config(int batchSize, int frames, int height, int width, BatchLayout layout, long poolBytes) {
    }

    /** The config string for batches of {@code options} and a pool of {@code poolBytes}: JSON. */
    static String config(LoaderOptions options, long poolBytes) {
        try {
            return JSON.writeValueAsString(new Config(options.batchSize(), options.frames(), options.height(),
                    options.width(), options.layout(), poolBytes));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("collate config for " + options, e);
        }
    }

    @Override
    public Function<List<LoadedClip>, CollatedBatch> create(String config) throws JsonProcessingException {
        Config c = JSON.readValue(config, Config.class);
        BatchPool pool = new BatchPool(new BatchShape(c.batchSize(), c.frames(), c.height(), c.width(), 3, c.layout()),
                c.poolBytes());
        CollateStage collate = new CollateStage(pool, (batch, last) -> { });
        return clips -> {
            LoadedClip last = clips.getLast();   // its fields stay readable after collate closed it
            return new CollatedBatch(collate.apply(clips), last.task().epoch(), last.task().position(), last.clip(),
                    last.clipsOfVideo());
        };
    }
}
