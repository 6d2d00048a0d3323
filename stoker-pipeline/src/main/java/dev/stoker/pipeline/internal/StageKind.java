package dev.stoker.pipeline.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.stoker.pipeline.PipelineSpec;
import java.util.Arrays;

/**
 * What a stage does with one input: the closed set of stage kinds. In JSON (a {@link PipelineSpec}, the
 * stats) each is its {@link #jsonName()}, as before the enum existed: {@code map}, {@code flatMap},
 * {@code filter}, {@code batch}.
 */
public enum StageKind {
    /** One in, at most one out. */
    MAP("map"),
    /** One in, any number out. */
    FLAT_MAP("flatMap"),
    /** One in, itself or nothing out. */
    FILTER("filter"),
    /** Many in, one list out; keeps the partial batch between items, so it runs on one worker. */
    BATCH("batch");

    private final String jsonName;

    StageKind(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name in JSON and in messages. */
    @JsonValue
    public String jsonName() { return jsonName; }

    /** Whether the stage keeps state between items and so runs on exactly one worker. */
    public boolean sequential() {
        return this == BATCH;
    }

    /**
     * Whether the stage's description alone rebuilds it, with no factory class: a batch stage is its size and
     * {@code dropLast}; the others are user code.
     */
    public boolean builtIn() {
        return this == BATCH;
    }

    /** The kind named {@code name} ({@link #jsonName()}). */
    @JsonCreator
    public static StageKind of(String name) {
        for (StageKind k : values()) {
            if (k.jsonName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("stage kind: '" + name + "' (expected one of "
                + Arrays.stream(values()).map(StageKind::jsonName).toList() + ")");
    }

    @Override
    public String toString() { return jsonName; }
}
