package dev.stoker.video.loader.internal;

import dev.stoker.pipeline.StageFactory;
import java.util.List;
import java.util.function.Function;

/** The convert stage as a {@link StageFactory}, for a child JVM. No config. */
public final class ConvertFactory implements StageFactory<DecodedVideo, List<LoadedClip>> {
    @Override
    public Function<DecodedVideo, List<LoadedClip>> create(String config) {
        return new ConvertStage();
    }
}
