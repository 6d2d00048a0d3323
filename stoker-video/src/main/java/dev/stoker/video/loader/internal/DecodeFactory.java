package dev.stoker.video.loader.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.loader.VideoLoader;
import java.util.function.Function;

/**
 * The decode stage as a {@link StageFactory}, so that it can run in a child JVM ({@code stoker bench
 * --split-after convert}, or later); {@link DecodeConvertFactory} is the fused form. Its config is the
 * loader's options ({@link LoaderOptions#toJson()}); it makes a clip buffer pool of its own, sized by the same
 * {@link MemoryPlan} as the parent's (its one-clip buffers live in the child: the child's exit frees them,
 * with the decoders).
 */
public final class DecodeFactory implements StageFactory<OpenedVideo, DecodedVideo> {

    /** A decode stage with a clip pool of its own. */
    static DecodeStage stage(String config) {
        LoaderOptions options = LoaderOptions.fromJson(config);
        MemoryPlan plan = MemoryPlan.of(options, VideoLoader.defaultConfig(Runtime.getRuntime().availableProcessors()));
        return new DecodeStage(options, new BatchPool(options.clipShape(), plan.childClipPoolBytes()));
    }

    @Override
    public Function<OpenedVideo, DecodedVideo> create(String config) {
        return stage(config)::decode;
    }
}
