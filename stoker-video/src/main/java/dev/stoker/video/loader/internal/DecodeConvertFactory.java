package dev.stoker.video.loader.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.pipeline.StageFactory;
import java.util.List;
import java.util.function.Function;

/**
 * The decode stage with convert fused into it ({@link LoaderOptions.Decode#fusedConvert()}) as a
 * {@link StageFactory}, for a child JVM: each video into its converted clips. Config: the loader's options, as {@link DecodeFactory}'s.
 */
public final class DecodeConvertFactory implements StageFactory<OpenedVideo, List<LoadedClip>> {
    @Override
    public Function<OpenedVideo, List<LoadedClip>> create(String config) {
        return DecodeFactory.stage(config)::decodeAndConvert;
    }
}
