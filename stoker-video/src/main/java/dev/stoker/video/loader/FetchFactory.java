package dev.stoker.video.loader;

import dev.stoker.pipeline.StageFactory;
import java.util.function.Function;

/**
 * The fetch stage as a {@link StageFactory}, so that it can run in a child JVM
 * ({@code stoker bench --split-after fetch}). No config.
 */
public final class FetchFactory implements StageFactory<VideoTask, FetchedVideo> {
    @Override
    public Function<VideoTask, FetchedVideo> create(String config) {
        return new FetchStage();
    }
}
