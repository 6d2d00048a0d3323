package dev.stoker.tune;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which knobs the tuner moves, and their ranges. JSON:
 * <pre>{@code
 * {"knobs": [
 *   {"name": "decode.concurrency", "min": 1, "max": 8},
 *   {"name": "decode.queueCapacity", "min": 1, "max": 64, "scale": "log"},
 *   {"name": "sinkCapacity", "min": 1, "max": 16, "scale": "log"},
 *   {"name": "option.decoder-threads", "min": 1, "max": 2},
 *   {"name": "option.fused-convert", "scale": "boolean"}
 * ]}
 * }</pre>
 * A point of the space is a value for every knob ({@link #pointOf}); {@link #configOf} and
 * {@link #optionsOf} turn it into what a trial runs.
 */
public record SearchSpace(List<Knob> knobs) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @JsonCreator
    public SearchSpace(@JsonProperty("knobs") List<Knob> knobs) {
        Objects.requireNonNull(knobs, "knobs");
        if (knobs.isEmpty()) {
            throw new IllegalArgumentException("search space: no knobs (expected: at least one)");
        }
        Set<String> names = new HashSet<>();
        for (Knob k : knobs) {
            if (!names.add(k.name())) {
                throw new IllegalArgumentException("search space: knob '" + k.name() + "' twice (expected: unique names)");
            }
        }
        this.knobs = List.copyOf(knobs);
    }

    public static SearchSpace of(Knob... knobs) {
        return new SearchSpace(List.of(knobs));
    }

    public Knob knob(String name) {
        for (Knob k : knobs) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("knob: '" + name + "' (expected one of " + knobs.stream().map(Knob::name).toList() + ")");
    }

    /**
     * The point {@code config} (an effective config: every field set) and {@code options} stand on, each
     * value clamped to its knob's range. A knob neither sets (an option not given) takes its minimum.
     */
    public Map<String, Integer> pointOf(PipelineConfig config, Map<String, String> options) {
        Map<String, Integer> point = new TreeMap<>();
        for (Knob k : knobs) {
            Integer v = valueOf(k, config, options);
            point.put(k.name(), k.clamp(v != null ? v : k.min()));
        }
        return point;
    }

    /**
     * This space with every knob's range widened to hold {@code point}'s value: a search starting outside
     * the given ranges (a start config with more workers than the space allows) can still run, and repeat,
     * exactly its start.
     */
    public SearchSpace widenedTo(Map<String, Integer> point) {
        List<Knob> widened = new ArrayList<>();
        for (Knob k : knobs) {
            Integer v = point.get(k.name());
            widened.add(v == null || k.scale() == Knob.Scale.BOOLEAN ? k
                    : new Knob(k.name(), Math.min(k.min(), v), Math.max(k.max(), v), k.scale()));
        }
        return new SearchSpace(widened);
    }

    /** The values {@code config} and {@code options} set, unclamped, for the knobs they set (on/off options left out). */
    public Map<String, Integer> valuesOf(PipelineConfig config, Map<String, String> options) {
        Map<String, Integer> values = new TreeMap<>();
        for (Knob k : knobs) {
            Integer v = k.isOption() && k.scale() == Knob.Scale.BOOLEAN ? null : valueOf(k, config, options);
            if (v != null) {
                values.put(k.name(), v);
            }
        }
        return values;
    }

    /** What {@code config} and {@code options} set {@code k} to, unclamped (on/off as 1/0); null for an option not given. */
    private static Integer valueOf(Knob k, PipelineConfig config, Map<String, String> options) {
        if (k.name().equals("sinkCapacity")) {
            return config.sinkCapacity();
        }
        if (k.isOption()) {
            String text = options.get(k.name().substring("option.".length()));
            if (text == null) {
                return null;
            }
            return k.scale() == Knob.Scale.BOOLEAN ? (Boolean.parseBoolean(text) ? 1 : 0) : Integer.parseInt(text);
        }
        StageConfig s = config.stage(k.stage());
        return k.isConcurrency() ? s.concurrency() : s.queueCapacity();
    }

    /** {@code base} with the point's stage and sink knobs laid over it. */
    public PipelineConfig configOf(PipelineConfig base, Map<String, Integer> point) {
        PipelineConfig c = base;
        for (Knob k : knobs) {
            Integer v = point.get(k.name());
            if (v == null || k.isOption()) {
                continue;
            }
            if (k.name().equals("sinkCapacity")) {
                c = c.withSinkCapacity(v);
            } else {
                StageConfig s = c.stage(k.stage());
                c = c.withStage(k.stage(), k.isConcurrency() ? s.withConcurrency(v) : s.withQueueCapacity(v));
            }
        }
        return c;
    }

    /** {@code base} options with the point's {@code option.} knobs laid over them (booleans as true/false). */
    public Map<String, String> optionsOf(Map<String, String> base, Map<String, Integer> point) {
        Map<String, String> options = new LinkedHashMap<>(base);
        for (Knob k : knobs) {
            Integer v = point.get(k.name());
            if (v != null && k.isOption()) {
                options.put(k.name().substring("option.".length()),
                        k.scale() == Knob.Scale.BOOLEAN ? Boolean.toString(v != 0) : Integer.toString(v));
            }
        }
        return options;
    }

    /** Knobs of {@code stage}. */
    List<Knob> knobsOf(String stage) {
        List<Knob> of = new ArrayList<>();
        for (Knob k : knobs) {
            if (stage.equals(k.stage())) {
                of.add(k);
            }
        }
        return of;
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static SearchSpace fromJson(String json) {
        try {
            return JSON.readValue(json, SearchSpace.class);
        } catch (com.fasterxml.jackson.databind.exc.ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException("search space: " + cause.getMessage(), e);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IllegalArgumentException("search space: not valid JSON for a search space: " + e.getOriginalMessage(), e);
        }
    }

    public static SearchSpace read(Path file) {
        try {
            return fromJson(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read search space " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
