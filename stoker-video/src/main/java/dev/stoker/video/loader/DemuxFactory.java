package dev.stoker.video.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.StageFactory;
import java.util.function.Function;

/**
 * The demux stage as a {@link StageFactory}, so that it can run in a child JVM
 * ({@code stoker bench --split-after demux}). Its config ({@link #config}) carries what demux needs of the
 * {@link LoaderOptions}: how clip starts are sampled and how long a clip is.
 */
public final class DemuxFactory implements StageFactory<FetchedVideo, OpenedVideo> {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The sampling settings of {@link LoaderOptions} that the demux stage reads. */
    record Config(LoaderOptions.Sampling sampling, int clipsPerVideo, double windowStepSeconds, long seed, int frames,
                  int strideFrames, double resampleFps) {
    }

    /** The config string for {@code options}: JSON. */
    static String config(LoaderOptions options) {
        try {
            return JSON.writeValueAsString(new Config(options.sampling(), options.clipsPerVideo(),
                    options.windowStepSeconds(), options.seed(), options.frames(), options.strideFrames(),
                    options.resampleFps()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("demux config for " + options, e);
        }
    }

    @Override
    public Function<FetchedVideo, OpenedVideo> create(String config) throws JsonProcessingException {
        Config c = JSON.readValue(config, Config.class);
        LoaderOptions options = LoaderOptions.defaults()
                .withClip(c.frames(), c.strideFrames())
                .withSampling(c.sampling(), c.clipsPerVideo(), c.windowStepSeconds())
                .withOrder(c.seed(), true, -1);
        return new DemuxStage(c.resampleFps() > 0 ? options.withResampledClip(c.frames(), c.resampleFps()) : options);
    }
}
