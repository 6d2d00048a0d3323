package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.internal.StageKind;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The spec's JSON keeps the stage kinds' names ({@code map}, {@code flatMap}, ...) now that a kind is an enum. */
class PipelineSpecJsonTest {

    public static final class Identity implements StageFactory<Object, Object> {
        @Override
        public Function<Object, Object> create(String config) {
            return x -> x;
        }
    }

    public static final class Single implements StageFactory<Object, Iterable<Object>> {
        @Override
        public Function<Object, Iterable<Object>> create(String config) {
            return List::of;
        }
    }

    public static final class KeepAll implements StageFactory<Object, Boolean> {
        @Override
        public Function<Object, Boolean> create(String config) {
            return x -> true;
        }
    }

    private static PipelineBuilder<List<Object>> builder() {
        return Pipeline.<Object>from(List.of(1, 2, 3))
                .map("fetch", Identity.class, "map")
                .<Object>flatMap("split", Single.class, "flat")
                .filter("keep", KeepAll.class, "keep")
                .batch("batch", 2, true);
    }

    @Test
    void stageKindsAreWrittenByTheirNames() throws Exception {
        JsonNode stages = new ObjectMapper().readTree(builder().spec().toJson()).get("stages");
        assertThat(stages).extracting(s -> s.get("kind").asText()).containsExactly("map", "flatMap", "filter", "batch");
        assertThat(stages.get(3).get("factoryConfig").asText()).isEqualTo("{\"size\":2,\"dropLast\":true}");
    }

    @Test
    void aSpecRoundTripsThroughJson() {
        PipelineSpec spec = builder().spec();
        PipelineSpec read = PipelineSpec.fromJson(spec.toJson());
        assertThat(read).isEqualTo(spec);
        assertThat(read.stages()).extracting(PipelineSpec.Stage::kind)
                .containsExactly(StageKind.MAP, StageKind.FLAT_MAP, StageKind.FILTER, StageKind.BATCH);
        assertThat(read.stages()).allMatch(PipelineSpec.Stage::reconstructible);
    }

    @Test
    void aSpecWrittenBeforeTheEnumIsReadTheSame() {
        PipelineSpec read = PipelineSpec.fromJson("""
                {"stages": [{"name": "fetch", "kind": "map", "factory": "%s", "factoryConfig": "map"},
                            {"name": "split", "kind": "flatMap", "factory": "%s", "factoryConfig": "flat"},
                            {"name": "keep", "kind": "filter", "factory": "%s", "factoryConfig": "keep"},
                            {"name": "batch", "kind": "batch", "factoryConfig": "{\\"size\\":2,\\"dropLast\\":true}"}],
                 "config": %s}
                """.formatted(Identity.class.getName(), Single.class.getName(), KeepAll.class.getName(),
                builder().effectiveConfig().toJson()));
        assertThat(read).isEqualTo(builder().spec());
    }

    @Test
    void anUnknownKindIsRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> PipelineSpec.fromJson("{\"stages\": [{\"name\": \"a\", \"kind\": \"reduce\"}]}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stage kind: 'reduce' (expected one of [map, flatMap, filter, batch])");
    }

    @Test
    void statsNameTheKindAsTheSpecDoes() {
        try (Pipeline<List<Object>> p = builder().build()) {
            p.forEach(b -> { });
            assertThat(p.stats().stage("split").kind()).isEqualTo("flatMap");
            assertThat(p.stats().stage("batch").kind()).isEqualTo("batch");
        }
    }
}
