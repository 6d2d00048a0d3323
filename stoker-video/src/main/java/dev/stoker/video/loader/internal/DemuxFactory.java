package dev.stoker.video.loader.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.StageFactory;
import java.util.function.Function;

/**
 * The demux stage as a {@link StageFactory}, so that it can run in a child JVM
 * ({@code stoker bench --split-after demux}). Its config is the loader's options ({@link LoaderOptions#toJson()}),
 * of which it reads how clip starts are sampled and how long a clip is.
 */
public final class DemuxFactory implements StageFactory<FetchedVideo, OpenedVideo> {

    @Override
    public Function<FetchedVideo, OpenedVideo> create(String config) {
        return new DemuxStage(LoaderOptions.fromJson(config));
    }
}
