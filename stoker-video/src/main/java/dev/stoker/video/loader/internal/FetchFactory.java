package dev.stoker.video.loader.internal;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.StageFactory;
import java.util.function.Function;

/**
 * The fetch stage as a {@link StageFactory}, so that it can run in a child JVM
 * ({@code stoker bench --split-after fetch}). Its config is the loader's options ({@link LoaderOptions#toJson()}),
 * of which it reads the {@link LoaderOptions#fetchHook()} and, for folders of images, how clips are drawn.
 */
public final class FetchFactory implements StageFactory<VideoTask, FetchedVideo> {

    @Override
    public Function<VideoTask, FetchedVideo> create(String config) throws ReflectiveOperationException {
        LoaderOptions options = LoaderOptions.fromJson(config);
        Class<? extends FetchHook> hook = options.fetchHook();
        return new FetchStage(options, hook == null ? null : hook.getConstructor().newInstance());
    }
}
