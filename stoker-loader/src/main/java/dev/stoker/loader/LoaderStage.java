package dev.stoker.loader;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.stoker.pipeline.InvalidValueException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The video loader's stages, in order; each can be the last one a child JVM runs
 * ({@link LoaderOptions.Placement#splitAfter()}), since each has a codec for its outputs.
 */
public enum LoaderStage {
    FETCH, DEMUX, DECODE, CONVERT, BATCH, COLLATE;

    /** Stage names, in order, as the pipeline, its stats and the CLI spell them. */
    public static final List<String> NAMES = Arrays.stream(values()).map(LoaderStage::stageName).toList();

    /** The pipeline's name for this stage: {@code "decode"}. */
    @JsonValue
    public String stageName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this stage runs before or is {@code other}. */
    public boolean upTo(LoaderStage other) {
        return compareTo(other) <= 0;
    }

    /** The stage called {@code name} ({@code "decode"}, any case). */
    @JsonCreator
    public static LoaderStage of(String name) {
        for (LoaderStage s : values()) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new InvalidValueException("stage", "'" + name + "'", "one of " + NAMES);
    }
}
