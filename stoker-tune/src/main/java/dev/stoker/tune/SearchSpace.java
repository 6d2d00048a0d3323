package dev.stoker.tune;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stoker.loader.LoaderOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which knobs the tuner moves, and their ranges; each knob is a path of the options document. JSON:
 * <pre>{@code
 * {"knobs": [
 *   {"name": "config.stages.decode.concurrency", "min": 1, "max": 8},
 *   {"name": "config.stages.decode.queueCapacity", "min": 1, "max": 64, "scale": "log"},
 *   {"name": "config.sinkCapacity", "min": 1, "max": 16, "scale": "log"},
 *   {"name": "decode.threads", "min": 1, "max": 2},
 *   {"name": "decode.fusedConvert", "scale": "boolean"}
 * ]}
 * }</pre>
 * A point of the space is a value for every knob ({@link #pointOf}); {@link #optionsAt} lays it over the options
 * a trial starts from.
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
     * The point {@code options} stand on (with an effective config: every stage's settings set), each value clamped
     * to its knob's range. A knob the options leave unset takes its minimum.
     */
    public Map<String, Integer> pointOf(LoaderOptions options) {
        Map<String, Integer> point = new TreeMap<>();
        for (Knob k : knobs) {
            Integer v = valueOf(k, options);
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

    /** The values {@code options} set, unclamped, for the integer knobs they set. */
    public Map<String, Integer> valuesOf(LoaderOptions options) {
        Map<String, Integer> values = new TreeMap<>();
        for (Knob k : knobs) {
            Integer v = k.scale() == Knob.Scale.BOOLEAN ? null : valueOf(k, options);
            if (v != null) {
                values.put(k.name(), v);
            }
        }
        return values;
    }

    /** What {@code options} set {@code k} to, unclamped (true/false as 1/0); null where nothing sets it. */
    private static Integer valueOf(Knob k, LoaderOptions options) {
        JsonNode v = options.valueAt(k.name());
        if (v.isMissingNode() || v.isNull()) {
            return null;
        }
        return v.isBoolean() ? (v.asBoolean() ? 1 : 0) : v.asInt();
    }

    /** {@code base} with the point's value at each knob's path (a boolean knob's 1/0 as true/false). */
    public LoaderOptions optionsAt(LoaderOptions base, Map<String, Integer> point) {
        LoaderOptions o = base;
        for (Knob k : knobs) {
            Integer v = point.get(k.name());
            if (v != null) {
                o = o.with(k.name(), k.scale() == Knob.Scale.BOOLEAN ? (Object) (v != 0) : (Object) v);
            }
        }
        return o;
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
