package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.loader.clip.Resize;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.InvalidValueException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The options document's published schema: current, complete, its defaults the records' defaults, its bounds
 * the ones the reader enforces, and every refusal naming the path and what it expects.
 */
class OptionsSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path PUBLISHED = Path.of("..", "docs", "options.schema.json");

    @Test
    void thePublishedSchemaIsCurrent() throws Exception {
        assertThat(PUBLISHED).as("docs/options.schema.json").exists();
        assertThat(Files.readString(PUBLISHED))
                .as("docs/options.schema.json is stale: run ./stoker options --schema > docs/options.schema.json")
                .isEqualTo(OptionsSchema.json());
    }

    @Test
    void everyOptionHasItsPlaceAndEveryPlaceItsOption() {
        List<String> leaves = new ArrayList<>();
        leaves(OptionsSchema.schema(), "", leaves);
        assertThat(leaves).as("the schema's values with a fixed place").containsExactlyInAnyOrderElementsOf(LoaderOption.paths());
        for (LoaderOption o : LoaderOption.values()) {
            assertThat(OptionsSchema.at(o.path()).get("x-python").asText()).isEqualTo(o.keyword());
        }
        assertThat(LoaderOption.values()).extracting(LoaderOption::keyword).doesNotHaveDuplicates();
    }

    /** A document made of nothing but the schema's defaults reads as the records' defaults. */
    @Test
    void theSchemasDefaultsAreTheDefaults() {
        ObjectNode document = JSON.createObjectNode();
        for (LoaderOption o : LoaderOption.values()) {
            JsonNode d = OptionsSchema.at(o.path()).get("default");
            if (d != null) {
                put(document, o.path(), d);
            }
        }
        assertThat(LoaderOptions.defaults().overlaid(document.toString())).isEqualTo(LoaderOptions.defaults());
        assertThat(document.toString()).contains("\"failureBudget\":\"0.1@50\"");
    }

    /** Every lower bound is the records' own: the bound itself is taken, one below it refused with the path. */
    @Test
    void everyBoundIsTakenAndOneBelowItRefused() {
        for (LoaderOption o : LoaderOption.values()) {
            if (o.minimum().isEmpty()) {
                continue;
            }
            long min = o.minimum().get();
            LoaderOptions base = o == LoaderOption.WINDOW_FROM_SECONDS   // a window has both ends
                    ? LoaderOptions.defaults().with("clip.window", java.util.Map.of("fromSeconds", 0, "toSeconds", 1))
                    : LoaderOptions.defaults();
            assertThat(base.with(o.path(), min).valueAt(o.path()).asLong()).as(o.path()).isEqualTo(min);
            String expected = o.maximum().map(max -> min + ".." + max).orElse(min + "+");
            assertThatThrownBy(() -> base.with(o.path(), min - 1)).as(o.path()).isInstanceOf(InvalidValueException.class)
                    .hasMessage(o.path() + ": " + (min - 1) + " (expected: " + expected + ")");
            o.maximum().ifPresent(max -> assertThatThrownBy(() -> base.with(o.path(), max + 1)).as(o.path())
                    .hasMessage(o.path() + ": " + (max + 1) + " (expected: " + expected + ")"));
        }
    }

    @Test
    void unknownPlacesAreNamedWithWhatIsThere() {
        assertThatThrownBy(() -> LoaderOptions.defaults().overlaid("{\"decode\": {\"threadz\": 2}}"))
                .isInstanceOf(InvalidValueException.class)
                .hasMessage("decode.threadz: not an option (expected: one of threads, skipNonReferenceFrames, fusedConvert, device,"
                        + " nvdecSessions)");
        assertThatThrownBy(() -> LoaderOptions.defaults().overlaid("{\"clips\": {}}"))
                .isInstanceOf(InvalidValueException.class).hasMessageStartingWith("clips: not an option (expected: one of clip, size,");
        assertThatThrownBy(() -> LoaderOptions.defaults().with("decode.threadz", 2)).isInstanceOf(InvalidValueException.class)
                .hasMessage("decode.threadz: not a place in the options document (expected: one of threads,"
                        + " skipNonReferenceFrames, fusedConvert, device, nvdecSessions after 'decode.')");
        assertThatThrownBy(() -> LoaderOptions.defaults().overlaid("{\"config\": {\"stages\": {\"decode\": {\"threads\": 2}}}}"))
                .isInstanceOf(InvalidValueException.class).hasMessageStartingWith("config.stages.decode.threads: not an option");
    }

    @Test
    void badValuesAreNamedWithWhatIsExpected() {
        Map<String, String> refused = Map.of(
                "{\"clip\": {\"frames\": \"16\"}}", "clip.frames: \"16\" (expected: an integer)",
                "{\"batch\": {\"dropLast\": 1}}", "batch.dropLast: 1 (expected: true or false)",
                "{\"batch\": {\"layout\": \"NHWC\"}}", "batch.layout: \"NHWC\" (expected: one of NTHWC, NCTHW)",
                "{\"failureBudget\": \"lots\"}", "failureBudget: \"lots\" (expected: RATE[@MIN_ITEMS] with RATE in 0..1"
                        + " and MIN_ITEMS 0+ (e.g. 0.3 or \"0.3@100\"), or {maxFailures, maxFailureRate, warmupItems})",
                "{\"failureBudget\": 1.5}", "failureBudget: 1.5 (expected: RATE[@MIN_ITEMS] with RATE in 0..1"
                        + " and MIN_ITEMS 0+ (e.g. 0.3 or \"0.3@100\"), or {maxFailures, maxFailureRate, warmupItems})",
                "{\"config\": {\"stages\": {\"decode\": {\"concurrency\": 0}}}}",
                "config.stages.decode.concurrency: 0 (expected: 1+)");
        refused.forEach((document, message) -> assertThatThrownBy(() -> LoaderOptions.defaults().overlaid(document))
                .as(document).isInstanceOf(InvalidValueException.class).hasMessage(message));
    }

    @Test
    void enumeratedValuesTakeAnyCaseAndTheirAliases() {
        assertThat(LoaderOptions.defaults().overlaid("{\"size\": {\"mode\": \"random-crop\"}}").size().mode())
                .isEqualTo(Resize.Mode.SHORT_SIDE_RANDOM_CROP);
        assertThat(LoaderOptions.defaults().overlaid("{\"size\": {\"mode\": \"stretch\"}}").size().mode())
                .isEqualTo(Resize.Mode.STRETCH);
        assertThat(LoaderOptions.defaults().overlaid("{\"batch\": {\"layout\": \"ncthw\"}}").batch().layout().name())
                .isEqualTo("NCTHW");
        assertThat(LoaderOptions.defaults().overlaid("{\"placement\": {\"splitAfter\": \"DEMUX\"}}").placement().splitAfter())
                .isEqualTo(VideoStage.DEMUX);
    }

    @Test
    void theTunersPathsSetAndReadValues() {
        LoaderOptions o = LoaderOptions.defaults().with("config.stages.decode.concurrency", 3).with("decode.threads", 2)
                .with("decode.fusedConvert", true).with("batch.size", 16).with("config.sinkCapacity", 6);
        assertThat(o.config().stage("decode").concurrency()).isEqualTo(3);
        assertThat(o.decode().threads()).isEqualTo(2);
        assertThat(o.decode().fusedConvert()).isTrue();
        assertThat(o.batch().size()).isEqualTo(16);
        assertThat(o.valueAt("config.stages.decode.concurrency").asInt()).isEqualTo(3);
        assertThat(o.valueAt("config.stages.fetch.concurrency").isMissingNode()).as("nothing sets it").isTrue();
        assertThat(o.valueAt("config.sinkCapacity").asInt()).isEqualTo(6);
        assertThat(o.with("failureBudget", "0.3@100").failureBudget()).isEqualTo(FailureBudget.rate(0.3, 100));
        assertThat(o.with("config.stages.decode.concurrency", 4).config().stage("decode").queueCapacity())
                .as("the stage's other settings stay").isEqualTo(o.config().stage("decode").queueCapacity());
    }

    private static void leaves(ObjectNode schema, String path, List<String> out) {
        ObjectNode s = OptionsValidator.resolve(OptionsSchema.shared(), schema);
        if (!s.has("properties") || s.has("x-python")) {
            out.add(path);
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = s.get("properties").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            leaves((ObjectNode) f.getValue(), path.isEmpty() ? f.getKey() : path + "." + f.getKey(), out);
        }
    }

    private static void put(ObjectNode document, String path, JsonNode value) {
        String[] keys = path.split("\\.");
        ObjectNode parent = document;
        for (int i = 0; i < keys.length - 1; i++) {
            parent = parent.has(keys[i]) ? (ObjectNode) parent.get(keys[i]) : parent.putObject(keys[i]);
        }
        parent.set(keys[keys.length - 1], value);
    }
}
