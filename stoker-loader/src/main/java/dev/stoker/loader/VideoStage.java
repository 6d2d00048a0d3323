package dev.stoker.loader;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.stoker.pipeline.InvalidValueException;
import java.util.List;
import java.util.Locale;

/**
 * The video loader's stages, in order; each can be the last one a child JVM runs
 * ({@link LoaderOptions.Placement#splitAfter()}), since each has a codec for its outputs. Here, beside the options
 * document that names them, rather than with the loader in stoker-video; the NVDEC loader runs the first two too.
 */
public enum VideoStage implements LoaderStage {
    FETCH, DEMUX, DECODE, CONVERT, BATCH, COLLATE;

    /** Stage names, in order, as the pipeline, its stats and the CLI spell them. */
    public static final List<String> NAMES = LoaderStage.names(List.of(values()));

    /**
     * The stage that hands on, in order, the batches a child JVM collated ({@link LoaderOptions.Placement#splitAfter()}
     * {@link #COLLATE}): this process's last; not one a split can follow, so not a constant of the set.
     */
    public static final String DELIVER = "deliver";

    /** The pipeline's name for this stage: the constant's in lower case. */
    @JsonValue
    @Override
    public String stageName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this stage runs before or is {@code other}. */
    public boolean upTo(VideoStage other) {
        return compareTo(other) <= 0;
    }

    /** The stage called {@code name}, in any case. */
    @JsonCreator
    public static VideoStage of(String name) {
        for (VideoStage s : values()) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new InvalidValueException("stage", "'" + name + "'", "one of " + NAMES);
    }
}
