package dev.stoker.video.loader;

import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.batch.BatchPool;
import java.util.function.Function;

/**
 * The decode stage as a {@link StageFactory}, so that it can run in a child JVM ({@code stoker bench
 * --split-after convert}, or later); {@link DecodeConvertFactory} is the fused form. Its config
 * ({@link #config}) is the loader's options and the bytes of the clip buffer pool the stage makes for itself
 * (its one-clip buffers live in the child: the child's exit frees them, with the decoders).
 */
public final class DecodeFactory implements StageFactory<OpenedVideo, DecodedVideo> {

    /** The config string for {@code options} and a clip pool of {@code clipPoolBytes}. */
    static String config(LoaderOptions options, long clipPoolBytes) {
        return PooledStageConfig.write(options, clipPoolBytes);
    }

    /** A decode stage with a clip pool of its own. */
    static DecodeStage stage(String config) {
        PooledStageConfig c = PooledStageConfig.read(config);
        return new DecodeStage(c.options(), new BatchPool(c.options().clipShape(), c.poolBytes()));
    }

    @Override
    public Function<OpenedVideo, DecodedVideo> create(String config) {
        return stage(config)::decode;
    }
}
