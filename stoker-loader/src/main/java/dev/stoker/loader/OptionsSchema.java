package dev.stoker.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.InvalidValueException;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The options document's JSON Schema (draft 2020-12), made from the {@link LoaderOptions} records (their
 * shape, types and defaults) and the {@link LoaderOption} and {@link StageOption} tables (paths, Python
 * keywords, bounds, meanings). It is published as {@code docs/options.schema.json} (a test keeps that file
 * current), the Python bridge's argument table is generated from it, and {@link OptionsValidator} checks every
 * document the JVM reads against it, so that both sides refuse the same things with the same words.
 */
public final class OptionsSchema {
    static final String ID = "https://stoker.dev/schemas/options.schema.json";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String BUDGET_DEF = "failureBudget";
    private static final String STAGE_DEF = "stage";
    private static final Map<String, String> GROUPS = Map.of(
            "clip", "What a clip is: its frames and how its starts are chosen.",
            "size", "How decoded frames become the output size.",
            "batch", "Clips per batch, the batch layout and the batch memory budget.",
            "sampling", "The epoch order: seed, shuffle, epochs, shuffle window, rank and world size, tail.",
            "decode", "The decoder: threads, frame skipping, convert fused into decode.",
            "placement", "Where the stages run.",
            "config", "The pipeline's knobs that are not code, laid over the loader's defaults.",
            "clip.window", "A window of each video (both ends given): one clip a video of its frames, by linspace.");
    private static final ObjectNode SCHEMA = build();

    private OptionsSchema() {
    }

    /** The schema, as published (a copy: callers may not change the one the reader checks against). */
    public static ObjectNode schema() { return SCHEMA.deepCopy(); }

    /** The schema as the text of {@code docs/options.schema.json}. */
    public static String json() {
        try {
            return JSON.writeValueAsString(SCHEMA) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode shared() { return SCHEMA; }

    /**
     * The schema of the value at {@code path} ({@code decode.threads}, {@code config.stages.decode.concurrency}), as
     * written there (a {@code $ref} is not followed: the place's own description and default stay).
     *
     * @throws InvalidValueException (named by the path) if the document has no such place
     */
    public static ObjectNode at(String path) {
        ObjectNode node = SCHEMA;
        StringBuilder walked = new StringBuilder();
        for (String key : path.split("\\.", -1)) {
            ObjectNode object = OptionsValidator.resolve(SCHEMA, node);
            JsonNode next = object.path("properties").get(key);
            if (next == null && object.get("additionalProperties") instanceof ObjectNode any && !key.isEmpty()) {
                next = any;
            }
            if (!(next instanceof ObjectNode found)) {
                String where = walked.isEmpty() ? "" : walked + ".";
                throw new InvalidValueException(where + key, "not a place in the options document",
                        object.has("properties") ? "one of " + String.join(", ", names(object)) + " after '" + where + "'"
                        : "nothing after '" + walked + "'");
            }
            node = found;
            walked.append(walked.isEmpty() ? "" : ".").append(key);
        }
        return node;
    }

    static Set<String> names(ObjectNode object) {
        Set<String> names = new LinkedHashSet<>();
        object.path("properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static ObjectNode build() {
        JsonNode defaults = JSON.valueToTree(LoaderOptions.defaults());
        ObjectNode root = NODES.objectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("$id", ID);
        root.put("title", "Stoker loader options");
        root.put("description", "The options document: every loader option, as the JVM (LoaderOptions), the command line"
                + " (--config, --options, --save-config), the Python bridge and the tuner exchange them. A value left out"
                + " keeps its default. Generated from the records by `stoker options --schema`; do not edit.");
        ObjectNode properties = object(root);
        for (RecordComponent c : LoaderOptions.class.getRecordComponents()) {
            properties.set(c.getName(), component(c.getName(), c.getType(), defaults.get(c.getName())));
        }
        ArrayNode workloads = root.putArray("x-workloads");
        for (Workload w : Workload.values()) {
            workloads.add(w.cliName());
        }
        ObjectNode defs = root.putObject("$defs");
        defs.set(BUDGET_DEF, failureBudget());
        defs.set(STAGE_DEF, stage());
        return root;
    }

    private static ObjectNode object(ObjectNode node) {
        node.put("type", "object");
        node.put("additionalProperties", false);
        return node.putObject("properties");
    }

    private static ObjectNode component(String path, Class<?> type, JsonNode defaultValue) {
        if (type == PipelineConfig.class) {
            ObjectNode config = pipelineConfig();
            config.put("description", GROUPS.get(path));
            return config;
        }
        if (type == FailureBudget.class || !type.isRecord()) {
            return leaf(option(path), type, defaultValue);
        }
        ObjectNode group = NODES.objectNode();
        group.put("description", GROUPS.getOrDefault(path, path));
        ObjectNode properties = object(group);
        for (RecordComponent c : type.getRecordComponents()) {
            String inner = path + "." + c.getName();
            properties.set(c.getName(), component(inner, c.getType(), defaultValue == null ? null : defaultValue.get(c.getName())));
        }
        return group;
    }

    private static LoaderOption option(String path) {
        return LoaderOption.atPath(path).orElseThrow(() -> new IllegalStateException(
                "LoaderOptions has a value at " + path + " that LoaderOption does not list: add it there"));
    }

    private static ObjectNode leaf(LoaderOption option, Class<?> type, JsonNode defaultValue) {
        ObjectNode node;
        if (type == FailureBudget.class) {
            node = NODES.objectNode();
            node.put("$ref", "#/$defs/" + BUDGET_DEF);
            defaultValue = defaultValue == null ? null
                    : NODES.textNode(JSON.convertValue(defaultValue, FailureBudget.class).shortForm());
        } else {
            node = typed(type);
        }
        node.put("description", option.description());
        node.put("x-python", option.keyword());
        if (!option.allowedValues().isEmpty()) {
            ArrayNode values = node.putArray("enum");
            option.allowedValues().forEach(values::add);
        }
        option.minimum().ifPresent(m -> node.put("minimum", m));
        option.fractionalMinimum().ifPresent(b -> {
            String key = b.exclusive() ? "exclusiveMinimum" : "minimum";
            if (b.value() == Math.rint(b.value())) {
                node.put(key, (long) b.value());   // "above 0", as people write it, not "above 0.0"
            } else {
                node.put(key, b.value());
            }
        });
        option.maximum().ifPresent(m -> node.put("maximum", m));
        if (!option.aliases().isEmpty()) {
            ObjectNode aliases = node.putObject("x-aliases");
            option.aliases().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(a -> aliases.put(a.getKey(), a.getValue()));
        }
        if (defaultValue != null && !defaultValue.isNull()) {
            node.set("default", defaultValue);
        }
        return node;
    }

    private static ObjectNode typed(Class<?> type) {
        ObjectNode node = NODES.objectNode();
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            node.put("type", "integer");
            // What the record holds: a larger number is refused naming the option, not by the JSON reader.
            node.put("format", type == int.class || type == Integer.class ? "int32" : "int64");
        } else if (type == double.class || type == Double.class) {
            node.put("type", "number");
        } else if (type == boolean.class || type == Boolean.class) {
            node.put("type", "boolean");
        } else if (type.isEnum()) {
            node.put("type", "string");
            ArrayNode values = node.putArray("enum");
            for (Object constant : type.getEnumConstants()) {
                values.add(JSON.valueToTree(constant).asText());
            }
        } else if (type == String.class || type == Path.class || type == Class.class) {
            node.put("type", "string");
        } else if (type == FailureBudget.class) {
            node.put("$ref", "#/$defs/" + BUDGET_DEF);
        } else {
            throw new IllegalStateException("no schema type for " + type.getName() + ": add one to OptionsSchema");
        }
        return node;
    }

    private static ObjectNode pipelineConfig() {
        ObjectNode node = NODES.objectNode();
        ObjectNode properties = object(node);
        for (RecordComponent c : PipelineConfig.class.getRecordComponents()) {
            String path = "config." + c.getName();
            LoaderOption option = option(path);
            ObjectNode field;
            if (option == LoaderOption.STAGES) {
                field = NODES.objectNode();
                field.put("type", "object");
                field.putObject("additionalProperties").put("$ref", "#/$defs/" + STAGE_DEF);
                field.put("description", option.description());
                field.put("x-python", option.keyword());
            } else {
                field = leaf(option, c.getType(), null);
            }
            properties.set(c.getName(), field);
        }
        return node;
    }

    private static ObjectNode stage() {
        ObjectNode node = NODES.objectNode();
        node.put("description", "One stage's settings; a value left out keeps what the loader sets.");
        ObjectNode properties = object(node);
        for (RecordComponent c : StageConfig.class.getRecordComponents()) {
            StageOption option = StageOption.ofField(c.getName()).orElseThrow(() -> new IllegalStateException(
                    "StageConfig has a field " + c.getName() + " that StageOption does not list: add it there"));
            ObjectNode field = typed(c.getType());
            field.put("description", option.description());
            option.keyword().ifPresent(k -> field.put("x-python", k));
            option.minimum().ifPresent(m -> field.put("minimum", m));
            properties.set(c.getName(), field);
        }
        return node;
    }

    private static ObjectNode failureBudget() {
        ObjectNode node = NODES.objectNode();
        node.put("description", "A failure budget: the short form RATE[@MIN_ITEMS], a rate alone, or the object form.");
        node.put("x-expected", "RATE[@MIN_ITEMS] with RATE in 0..1 and MIN_ITEMS 0+ (e.g. 0.3 or \"0.3@100\"), or"
                + " {maxFailures, maxFailureRate, warmupItems}");
        ArrayNode oneOf = node.putArray("oneOf");
        ObjectNode shortForm = oneOf.addObject();
        shortForm.put("type", "string");
        shortForm.put("pattern", "^\\s*(0(\\.[0-9]*)?|1(\\.0*)?|\\.[0-9]+)\\s*(@\\s*[0-9]+\\s*)?$");
        ObjectNode rate = oneOf.addObject();
        rate.put("type", "number");
        rate.put("minimum", 0);
        rate.put("maximum", 1);
        ObjectNode full = oneOf.addObject();
        ObjectNode fields = object(full);
        ObjectNode maxFailures = fields.putObject("maxFailures");
        maxFailures.put("type", "integer");
        maxFailures.put("minimum", -1);
        maxFailures.put("description", "Most failures allowed; -1: no count limit.");
        ObjectNode maxRate = fields.putObject("maxFailureRate");
        maxRate.put("type", "number");
        maxRate.put("minimum", 0);
        maxRate.put("maximum", 1);
        maxRate.put("description", "Most failures per item once warmupItems were seen; 1: no limit.");
        ObjectNode warmup = fields.putObject("warmupItems");
        warmup.put("type", "integer");
        warmup.put("minimum", 0);
        warmup.put("description", "Items seen before the rate applies.");
        return node;
    }
}
