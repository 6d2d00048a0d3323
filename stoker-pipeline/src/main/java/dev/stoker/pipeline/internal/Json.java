package dev.stoker.pipeline.internal;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

/** The JSON forms of the engine's values, and stage lookups by name, with the messages their readers expect. */
public final class Json {
    /** Indented output; unknown properties are an error (a misspelt knob must not pass silently). */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // A document is one value, each key once: text after it, or a key given twice, is a mistake to name.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Json() { }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a {@code type} from {@code json}; bad JSON is an {@link IllegalArgumentException} naming {@code what}. */
    public static <T> T read(String json, Class<T> type, String what) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + ": not valid JSON for a " + type.getSimpleName() + ": "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The element of {@code items} whose name is {@code wanted}; else an error listing the names there are. */
    public static <T> T stageNamed(List<T> items, Function<T, String> name, String wanted) {
        for (T item : items) {
            if (name.apply(item).equals(wanted)) {
                return item;
            }
        }
        throw new IllegalArgumentException("stage: '" + wanted + "' (expected one of "
                + items.stream().map(name).toList() + ")");
    }
}
