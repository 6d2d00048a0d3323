package dev.stoker.loader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.stoker.pipeline.InvalidValueException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks a document against the {@link OptionsSchema}: the part of JSON Schema the schema uses ({@code $ref},
 * {@code type}, {@code enum}, {@code minimum}/{@code maximum}, {@code pattern}, {@code properties} with
 * {@code additionalProperties}, {@code oneOf}). An enumerated value may be given in any case or as one of its
 * aliases ({@code x-aliases}); it is rewritten to the value it stands for. The first problem found is an
 * {@link InvalidValueException} named by its path. The Python bridge's {@code _options.check} is this, line for line.
 */
final class OptionsValidator {
    private OptionsValidator() {
    }

    /** Checks {@code document} (an object), rewriting enumerated values given in another spelling. */
    static void check(ObjectNode document) {
        check(OptionsSchema.shared(), document, "");
    }

    /** Checks {@code value}, to go at {@code path}; returns it, or the value an alias stands for. */
    static JsonNode checkAt(String path, JsonNode value) {
        return check(OptionsSchema.at(path), value, path);
    }

    static ObjectNode resolve(ObjectNode root, ObjectNode schema) {
        JsonNode ref = schema.get("$ref");
        if (ref == null) {
            return schema;
        }
        String name = ref.asText().substring("#/$defs/".length());
        return (ObjectNode) root.path("$defs").get(name);
    }

    private static JsonNode check(ObjectNode schemaNode, JsonNode value, String path) {
        ObjectNode schema = resolve(OptionsSchema.shared(), schemaNode);
        if (schema.has("oneOf")) {
            for (JsonNode alternative : schema.get("oneOf")) {
                try {
                    return check((ObjectNode) alternative, value, path);
                } catch (InvalidValueException wrong) {
                    // the next alternative may take it
                }
            }
            throw problem(path, value, schema.path("x-expected").asText());
        }
        String type = schema.path("type").asText();
        boolean typeOk = switch (type) {
            case "integer" -> value.isIntegralNumber() || (value.isNumber() && value.asDouble() == Math.rint(value.asDouble()));
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "string" -> value.isTextual();
            case "object" -> value.isObject();
            default -> true;
        };
        if (!typeOk) {
            throw problem(path, value, switch (type) {
                case "integer" -> "an integer";
                case "number" -> "a number";
                case "boolean" -> "true or false";
                case "string" -> "a string";
                default -> "an object";
            });
        }
        if (schema.has("enum")) {
            return enumerated(schema, value, path);
        }
        if (value.isNumber()) {
            bounds(schema, value, path);
        }
        if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
            throw problem(path, value, schema.path("x-expected").asText("a value matching " + schema.get("pattern").asText()));
        }
        if (value instanceof ObjectNode object) {
            fields(schema, object, path);
        }
        return value;
    }

    private static JsonNode enumerated(ObjectNode schema, JsonNode value, String path) {
        List<String> values = new ArrayList<>();
        schema.get("enum").forEach(v -> values.add(v.asText()));
        String given = value.asText();
        for (String v : values) {
            if (v.equalsIgnoreCase(given)) {
                return v.equals(given) ? value : TextNode.valueOf(v);
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("x-aliases").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> alias = it.next();
            if (alias.getKey().equalsIgnoreCase(given)) {
                return alias.getValue();
            }
        }
        List<String> spellings = new ArrayList<>(values);
        schema.path("x-aliases").fieldNames().forEachRemaining(spellings::add);
        throw problem(path, value, "one of " + String.join(", ", spellings));
    }

    private static void bounds(ObjectNode schema, JsonNode value, String path) {
        String format = schema.path("format").asText();
        boolean int32 = format.equals("int32");
        // Jackson's canConvertTo* check the range, of a number written as a double (3e9) too.
        if ((int32 || format.equals("int64")) && !(int32 ? value.canConvertToInt() : value.canConvertToLong())) {
            throw problem(path, value, "an integer of " + (int32 ? "32" : "64") + " bits");
        }
        double v = value.asDouble();
        JsonNode min = schema.get("minimum");
        JsonNode max = schema.get("maximum");
        JsonNode above = schema.get("exclusiveMinimum");
        if (above != null && !(v > above.asDouble())) {
            throw problem(path, value, "above " + above.asText() + (max != null ? ", at most " + max.asText() : ""));
        }
        if ((min != null && v < min.asDouble()) || (max != null && v > max.asDouble())) {
            String expected = min != null && max != null ? min.asText() + ".." + max.asText()
                    : min != null ? min.asText() + "+" : "at most " + max.asText();
            throw problem(path, value, expected);
        }
    }

    private static void fields(ObjectNode schema, ObjectNode object, String path) {
        JsonNode properties = schema.path("properties");
        JsonNode any = schema.get("additionalProperties");
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String inner = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
            JsonNode fieldSchema = properties.get(field.getKey());
            if (fieldSchema == null && any instanceof ObjectNode anySchema) {
                fieldSchema = anySchema;
            }
            if (!(fieldSchema instanceof ObjectNode known)) {
                throw new InvalidValueException(inner, "not an option", "one of " + String.join(", ", OptionsSchema.names(schema)));
            }
            JsonNode checked = check(known, field.getValue(), inner);
            if (checked != field.getValue()) {
                field.setValue(checked);
            }
        }
    }

    private static InvalidValueException problem(String path, JsonNode value, String expected) {
        return new InvalidValueException(path.isEmpty() ? "options" : path, value, expected);
    }
}
