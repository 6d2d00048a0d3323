package dev.stoker.loader;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The JSON form of {@link LoaderOptions}: the groups as objects, a field left out keeps its default, so that a
 * hand-written file or the Python bridge names only what it changes. A budget may be the short form
 * ({@code "failureBudget": "0.3@100"}, see {@link FailureBudget#parse}). A bare pipeline config (what
 * {@code --save-config} wrote before the options had a JSON form) reads as the defaults with that config.
 * A document is checked against the {@link OptionsSchema} before it is read, so that an unknown key or a value out
 * of range is an {@link dev.stoker.pipeline.InvalidValueException} named by its path.
 */
final class LoaderOptionsJson {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // A document is one value, each key once: text after it, or a key given twice, is a mistake to name.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** Top-level fields only a pipeline config has. */
    private static final Set<String> PIPELINE_CONFIG_ONLY = Set.of("sinkCapacity", "stallTimeoutMillis", "stages");
    private static final String BUDGET = "failureBudget";

    private LoaderOptionsJson() {
    }

    static String write(LoaderOptions options) {
        try {
            return JSON.writeValueAsString(options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LoaderOptions read(String json, LoaderOptions defaults) {
        try {
            JsonNode tree = JSON.readTree(json);
            if (!(tree instanceof ObjectNode given)) {
                throw new IllegalArgumentException("loader options: " + (tree == null || tree.isMissingNode() ? "empty" : tree.getNodeType())
                        + " (expected: a JSON object)");
            }
            if (isPipelineConfig(given)) {
                return defaults.toBuilder().config(PipelineConfig.fromJson(json)).build();
            }
            OptionsValidator.check(given);
            JsonNode budget = given.get(BUDGET);
            if (budget != null && (budget.isTextual() || budget.isNumber())) {
                given.set(BUDGET, JSON.valueToTree(FailureBudget.parse(budget.asText())));
            }
            ObjectNode merged = JSON.valueToTree(defaults);
            merge(merged, given);
            return JSON.treeToValue(merged, LoaderOptions.class);
        } catch (JsonMappingException e) {
            // A check across values (a constructor's) failed: name the group it is in.
            String group = e.getPath().stream().map(JsonMappingException.Reference::getFieldName)
                    .filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.joining("."));
            group = group.isEmpty() ? "" : group + ": ";
            throw new IllegalArgumentException("loader options: " + group + rootMessage(e), e);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("loader options: " + rootMessage(e), e);
        }
    }

    static JsonNode tree(Object value) {
        return JSON.valueToTree(value);
    }

    /** The value at {@code path} (checked to be a place of the document); missing where nothing sets it. */
    static JsonNode valueAt(LoaderOptions options, String path) {
        OptionsSchema.at(path);
        JsonNode node = JSON.valueToTree(options);
        for (String key : path.split("\\.")) {
            node = node.path(key);
        }
        return node;
    }

    /** {@code options} with {@code value} at {@code path}: a document of that one value, read over them. */
    static LoaderOptions with(LoaderOptions options, String path, JsonNode value) {
        OptionsSchema.at(path);
        ObjectNode document = JSON.createObjectNode();
        ObjectNode parent = document;
        String[] keys = path.split("\\.");
        for (int i = 0; i < keys.length - 1; i++) {
            parent = parent.putObject(keys[i]);
        }
        parent.set(keys[keys.length - 1], value);
        return read(document.toString(), options);
    }

    static LoaderOptions read(Path file, LoaderOptions defaults) {
        String json;
        try {
            json = Files.readString(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException(file + ": does not exist", e);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read (" + e.getClass().getSimpleName() + ")", e);
        }
        try {
            return read(json, defaults);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** A file with a pipeline config's own fields and none of the options' groups but the budget both have. */
    private static boolean isPipelineConfig(ObjectNode tree) {
        boolean pipelineField = false;
        for (Iterator<String> names = tree.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (PIPELINE_CONFIG_ONLY.contains(name)) {
                pipelineField = true;
            } else if (!name.equals(BUDGET)) {
                return false;
            }
        }
        return pipelineField;
    }

    /**
     * Lays {@code over} onto {@code base}: groups field by field, anything else replaced; a budget is one value
     * (its JSON leaves out the fields at their type's default, so mixing two budgets' fields would change it).
     */
    private static void merge(ObjectNode base, ObjectNode over) {
        for (Iterator<Map.Entry<String, JsonNode>> it = over.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getKey().equals(BUDGET) && base.get(e.getKey()) instanceof ObjectNode inner
                    && e.getValue() instanceof ObjectNode next) {
                merge(inner, next);
            } else {
                base.set(e.getKey(), e.getValue());
            }
        }
    }

    /** The message of the check that failed (a constructor's), else Jackson's own, without its location dump. */
    private static String rootMessage(JacksonException e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t instanceof IllegalArgumentException ? t.getMessage() : e.getOriginalMessage();
    }
}
