package dev.stoker.tune;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.OptionsSchema;
import dev.stoker.loader.StageOption;
import dev.stoker.pipeline.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * One knob the tuner may move, with its range. Its name is a path of the options document
 * ({@code docs/options.schema.json}) holding an integer or, for a {@code boolean} knob, a true/false:
 * <ul>
 *   <li>{@code config.stages.STAGE.concurrency}, {@code config.stages.STAGE.queueCapacity}: a stage's settings
 *       ({@link StageOption});</li>
 *   <li>any other integer or boolean of the document ({@link LoaderOption}): {@code config.sinkCapacity},
 *       {@code decode.threads}, {@code decode.fusedConvert}, {@code batch.size}, ...</li>
 * </ul>
 * A trial runs the options the search started from with each knob's value at its path, so every runner (a child
 * {@code stoker bench}, a model in tests) reads one {@link dev.stoker.loader.LoaderOptions}.
 *
 * @param name  the path it sets, as above
 * @param min   smallest value (booleans: 0)
 * @param max   largest value (booleans: 1)
 * @param scale {@code linear} (steps of 1), {@code log} (steps double or halve) or {@code boolean}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Knob(String name, int min, int max, Scale scale) {
    private static final String STAGES = LoaderOption.STAGES.path() + ".";

    /** How the knob steps. */
    public enum Scale {
        LINEAR, LOG, BOOLEAN;

        @JsonCreator
        static Scale parse(String text) {
            return valueOf(text.toUpperCase(Locale.ROOT));
        }

        @com.fasterxml.jackson.annotation.JsonValue
        String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @JsonCreator
    public Knob(@JsonProperty("name") String name, @JsonProperty("min") Integer min, @JsonProperty("max") Integer max,
                @JsonProperty("scale") Scale scale) {
        this(name, min == null ? (scale == Scale.BOOLEAN ? 0 : 1) : min,
                max == null ? (scale == Scale.BOOLEAN ? 1 : -1) : max, scale == null ? Scale.LINEAR : scale);
    }

    public Knob {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("knob name: '" + name + "' (expected: a path of the options document, e.g."
                    + " config.stages.decode.concurrency, config.sinkCapacity, decode.threads, batch.size)");
        }
        ObjectNode schema;
        try {
            schema = OptionsSchema.at(name);
        } catch (InvalidValueException e) {
            throw new IllegalArgumentException("knob '" + name + "': " + e.getMessage(), e);
        }
        String type = schema.path("type").asText();
        if (scale == Scale.BOOLEAN ? !type.equals("boolean") : !type.equals("integer")) {
            throw new IllegalArgumentException("knob '" + name + "': holds " + (type.isEmpty() ? "an object" : "a " + type)
                    + " (expected: " + (scale == Scale.BOOLEAN ? "a boolean for a boolean knob" : "an integer, or scale boolean")
                    + ")");
        }
        if (scale == Scale.BOOLEAN) {
            min = 0;
            max = 1;
        }
        long floor = schema.has("minimum") ? schema.get("minimum").asLong() : Long.MIN_VALUE;
        if (max < min || (scale != Scale.BOOLEAN && min < floor)) {
            throw new IllegalArgumentException("knob '" + name + "' range: " + min + ".." + max + " (expected: "
                    + (floor > Long.MIN_VALUE ? floor + " <= " : "") + "min <= max)");
        }
    }

    public static Knob linear(String name, int min, int max) {
        return new Knob(name, min, max, Scale.LINEAR);
    }

    public static Knob log(String name, int min, int max) {
        return new Knob(name, min, max, Scale.LOG);
    }

    public static Knob flag(String name) {
        return new Knob(name, 0, 1, Scale.BOOLEAN);
    }

    /** A stage's setting as a knob: {@code config.stages.STAGE.FIELD}. */
    public static Knob ofStage(String stage, StageOption setting, int min, int max, Scale scale) {
        return new Knob(setting.pathFor(stage), min, max, scale);
    }

    /** The stage a stage knob sets, else null. */
    public String stage() {
        if (!name.startsWith(STAGES)) {
            return null;
        }
        int dot = name.lastIndexOf('.');
        return name.substring(STAGES.length(), dot);
    }

    /** How changes name it: {@code decode.concurrency} for a stage's setting, else its path. */
    public String label() {
        String stage = stage();
        return stage == null ? name : name.substring(STAGES.length());
    }

    /** The setting a stage knob sets, if it is one. */
    public Optional<StageOption> stageSetting() {
        return stage() == null ? Optional.empty() : StageOption.ofField(name.substring(name.lastIndexOf('.') + 1));
    }

    /** The option a knob that is not a stage's sets, if it is one. */
    public Optional<LoaderOption> option() {
        return LoaderOption.atPath(name);
    }

    boolean isConcurrency() {
        return stageSetting().orElse(null) == StageOption.CONCURRENCY;
    }

    /** Whether it sets a loader option (not a stage's setting, not the sink): decoder threads, fused convert, batch size. */
    boolean isLoaderOption() {
        return stage() == null && option().orElse(null) != LoaderOption.SINK_CAPACITY;
    }

    int clamp(int value) {
        return Math.max(min, Math.min(max, value));
    }

    /** {@code value} moved {@code steps} steps (negative: down), clamped to the range. */
    int step(int value, int steps) {
        return switch (scale) {
            case LINEAR -> clamp(value + steps);
            case LOG -> clamp(steps >= 0 ? value << Math.min(steps, 20) : Math.max(1, value >> Math.min(-steps, 20)));
            case BOOLEAN -> steps == 0 ? value : 1 - clamp(value);
        };
    }

    /** The values a coordinate sweep tries: every one of a small range, else a geometric ladder. */
    List<Integer> sweepValues() {
        TreeSet<Integer> values = new TreeSet<>();
        if (scale == Scale.BOOLEAN || (scale == Scale.LINEAR && max - min <= 8)) {
            for (int v = min; v <= max; v++) {
                values.add(v);
            }
        } else {
            values.add(min);
            values.add(max);
            for (long v = Math.max(1, min); v <= max; v *= 2) {
                values.add((int) v);
                if (scale == Scale.LINEAR && v * 3 / 2 <= max && v >= 2) {
                    values.add((int) (v * 3 / 2));
                }
            }
        }
        return new ArrayList<>(values);
    }

    String format(int value) {
        return scale == Scale.BOOLEAN ? (value != 0 ? "on" : "off") : Integer.toString(value);
    }
}
