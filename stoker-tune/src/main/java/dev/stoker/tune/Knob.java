package dev.stoker.tune;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * One knob the tuner may move, with its range. The name says what it sets:
 * <ul>
 *   <li>{@code STAGE.concurrency}, {@code STAGE.queueCapacity}: a stage's {@code StageConfig} field;</li>
 *   <li>{@code sinkCapacity}: the sink buffer;</li>
 *   <li>{@code option.NAME}: anything else the trial runner understands (for {@code stoker bench}: a flag,
 *       e.g. {@code option.decoder-threads}, {@code option.fused-convert}, {@code option.batch}).</li>
 * </ul>
 *
 * @param name  what it sets, as above
 * @param min   smallest value (booleans: 0)
 * @param max   largest value (booleans: 1)
 * @param scale {@code linear} (steps of 1), {@code log} (steps double or halve) or {@code boolean}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Knob(String name, int min, int max, Scale scale) {

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
            throw new IllegalArgumentException("knob name: '" + name + "' (expected: STAGE.concurrency, STAGE.queueCapacity, sinkCapacity or option.NAME)");
        }
        boolean known = name.equals("sinkCapacity") || name.startsWith("option.")
                || name.endsWith(".concurrency") || name.endsWith(".queueCapacity");
        if (!known) {
            throw new IllegalArgumentException("knob name: '" + name + "' (expected: STAGE.concurrency, STAGE.queueCapacity, sinkCapacity or option.NAME)");
        }
        if (scale == Scale.BOOLEAN) {
            min = 0;
            max = 1;
        }
        if (max < min || (scale != Scale.BOOLEAN && !name.startsWith("option.") && min < 1)) {
            throw new IllegalArgumentException("knob '" + name + "' range: " + min + ".." + max + " (expected: 1 <= min <= max)");
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

    /** The stage a stage knob sets, else null. */
    public String stage() {
        int dot = name.lastIndexOf('.');
        return name.startsWith("option.") || dot < 0 ? null : name.substring(0, dot);
    }

    boolean isConcurrency() {
        return name.endsWith(".concurrency") && !name.startsWith("option.");
    }

    boolean isOption() {
        return name.startsWith("option.");
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
