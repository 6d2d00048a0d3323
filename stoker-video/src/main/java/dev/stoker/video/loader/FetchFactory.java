package dev.stoker.video.loader;

import dev.stoker.pipeline.StageFactory;
import java.util.function.Function;

/**
 * The fetch stage as a {@link StageFactory}, so that it can run in a child JVM
 * ({@code stoker bench --split-after fetch}). Its config ({@link #config}) is the class name of the
 * {@link LoaderOptions#fetchHook()}, or empty for none.
 */
public final class FetchFactory implements StageFactory<VideoTask, FetchedVideo> {

    /** The config string for {@code options}. */
    static String config(LoaderOptions options) {
        return options.fetchHook() == null ? "" : options.fetchHook().getName();
    }

    @Override
    public Function<VideoTask, FetchedVideo> create(String config) throws ReflectiveOperationException {
        if (config.isEmpty()) {
            return new FetchStage(null);
        }
        Class<?> type = Class.forName(config);
        if (!FetchHook.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("fetch hook: " + config + " (expected: a class implementing "
                    + FetchHook.class.getName() + ")");
        }
        return new FetchStage((FetchHook) type.getConstructor().newInstance());
    }
}
