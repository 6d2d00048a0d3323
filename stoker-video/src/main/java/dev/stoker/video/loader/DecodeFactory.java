package dev.stoker.video.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.video.PastEndPolicy;
import dev.stoker.video.Resize;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import java.util.function.Function;

/**
 * The decode stage as a {@link StageFactory}, so that it can run in a child JVM ({@code stoker bench
 * --split-after convert}, or later); {@link DecodeConvertFactory} is the fused form. Its config
 * ({@link #config}) carries what decoding needs of the {@link LoaderOptions} and the bytes of the clip
 * buffer pool the stage makes for itself (its one-clip buffers live in the child: the child's exit frees
 * them, with the decoders).
 */
public final class DecodeFactory implements StageFactory<OpenedVideo, DecodedVideo> {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The settings of {@link LoaderOptions} that decode and convert read, and the clip pool's budget. */
    record Config(int frames, int strideFrames, double resampleFps, int width, int height, Resize.Mode resizeMode,
                  int shortSide, PastEndPolicy pastEnd, long seed, int decoderThreads, boolean skipNonReferenceFrames,
                  long clipPoolBytes) {

        LoaderOptions options() {
            LoaderOptions o = LoaderOptions.defaults()
                    .withClip(frames, strideFrames)
                    .withSize(width, height, resizeMode, shortSide)
                    .withPastEnd(pastEnd)
                    .withOrder(seed, true, -1)
                    .withDecoder(decoderThreads, skipNonReferenceFrames);
            return resampleFps > 0 ? o.withResampledClip(frames, resampleFps) : o;
        }

        /** A decode stage with a clip pool of its own. */
        DecodeStage stage() {
            LoaderOptions o = options();
            BatchShape clip = new BatchShape(1, o.frames(), o.height(), o.width(), 3, BatchLayout.NTHWC);
            return new DecodeStage(o, new BatchPool(clip, clipPoolBytes));
        }

        static Config parse(String json) throws JsonProcessingException {
            return JSON.readValue(json, Config.class);
        }
    }

    /** The config string for {@code options} and a clip pool of {@code clipPoolBytes}: JSON. */
    static String config(LoaderOptions options, long clipPoolBytes) {
        try {
            return JSON.writeValueAsString(new Config(options.frames(), options.strideFrames(), options.resampleFps(),
                    options.width(), options.height(), options.resizeMode(), options.shortSide(), options.pastEnd(),
                    options.seed(), options.decoderThreads(), options.skipNonReferenceFrames(), clipPoolBytes));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("decode config for " + options, e);
        }
    }

    @Override
    public Function<OpenedVideo, DecodedVideo> create(String config) throws JsonProcessingException {
        return Config.parse(config).stage()::decode;
    }
}
