package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PipelineConfigTest {

    private static PipelineBuilder<List<Integer>> builder() {
        return Pipeline.from(List.of(1, 2, 3, 4, 5))
                .map("fetch", x -> x, s -> s.concurrency(8).virtualThreads())
                .map("decode", x -> x, s -> s.concurrency(3).ordered())
                .batch(2);
    }

    @Test
    void effectiveConfigRoundTripsThroughJson(@TempDir Path dir) {
        try (Pipeline<List<Integer>> p = builder().build(Sink.buffer(5))) {
            PipelineConfig effective = p.config();
            assertThat(effective.sinkCapacity()).isEqualTo(5);
            assertThat(effective.stage("fetch")).isEqualTo(new StageConfig(8, 16, Order.COMPLETION, true,
                    FailureBudget.DEFAULT_STAGE, 0L));
            assertThat(effective.stage("decode").order()).isEqualTo(Order.INPUT);
            assertThat(PipelineConfig.fromJson(effective.toJson())).isEqualTo(effective);
            Path file = dir.resolve("pipeline.json");
            effective.write(file);
            assertThat(PipelineConfig.read(file)).isEqualTo(effective);
        }
    }

    @Test
    void configAppliesByStageNameOverTheCode() {
        PipelineConfig cfg = PipelineConfig.fromJson("""
                {"sinkCapacity": 7,
                 "stages": {"decode": {"concurrency": 2, "order": "COMPLETION", "queueCapacity": 9,
                                       "failureBudget": {"maxFailures": 3}}}}
                """);
        try (Pipeline<List<Integer>> p = builder().config(cfg).build()) {
            assertThat(p.config().sinkCapacity()).isEqualTo(7);
            StageConfig decode = p.config().stage("decode");
            assertThat(decode.concurrency()).isEqualTo(2);
            assertThat(decode.queueCapacity()).isEqualTo(9);
            assertThat(decode.order()).isEqualTo(Order.COMPLETION);
            assertThat(decode.failureBudget().maxFailures()).isEqualTo(3);
            assertThat(p.config().stage("fetch").concurrency()).isEqualTo(8);
            assertThat(p.stats().stage("decode").concurrency()).isEqualTo(2);
            assertThat(p.stats().stage("decode").inputQueue().capacity()).isEqualTo(9);
            int n = 0;
            for (List<Integer> b : p) {
                n += b.size();
            }
            assertThat(n).isEqualTo(5);
        }
    }

    @Test
    void aStageSettlesAsTheRunningPipelineSettlesIt() {
        assertThat(StageConfig.EMPTY.settled())
                .isEqualTo(new StageConfig(1, 2, Order.COMPLETION, false, FailureBudget.DEFAULT_STAGE, 0L));
        assertThat(StageConfig.inInputOrder(3).settled())
                .isEqualTo(new StageConfig(3, 6, Order.INPUT, false, FailureBudget.DEFAULT_STAGE, 0L));
        // decode's code says 3 workers in input order; the config says 4 virtual ones with a timeout.
        PipelineConfig cfg = PipelineConfig.EMPTY.withStage("decode", new StageConfig(4, null, null, true, null, 50L));
        try (Pipeline<List<Integer>> p = builder().config(cfg).build()) {
            assertThat(p.config().stage("decode"))
                    .isEqualTo(new StageConfig(4, 8, Order.INPUT, true, FailureBudget.DEFAULT_STAGE, 50L));
            assertThat(p.config().sinkCapacity()).isEqualTo(PipelineBuilder.DEFAULT_SINK_CAPACITY);
        }
    }

    @Test
    void aConfigNamingAMissingStageIsRejectedWithTheStageList() {
        PipelineConfig cfg = PipelineConfig.EMPTY.withStage("decod", StageConfig.EMPTY.withConcurrency(2));
        assertThatThrownBy(() -> builder().config(cfg).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("config names stage 'decod' but the pipeline has stages [fetch, decode, batch]");
    }

    @Test
    void badValuesAreRejectedWithTheExpectedRange() {
        assertThatThrownBy(() -> PipelineConfig.fromJson("{\"stages\": {\"a\": {\"concurrency\": 0}}}"))
                .hasMessageContaining("concurrency: 0 (expected: 1+)");
        assertThatThrownBy(() -> PipelineConfig.fromJson("{\"stages\": {\"a\": {\"concurency\": 2}}}"))
                .hasMessageContaining("concurency");
        assertThatThrownBy(() -> builder().config(PipelineConfig.EMPTY.withStage("batch", StageConfig.EMPTY.withConcurrency(2))).build())
                .hasMessageContaining("stage 'batch' concurrency: 2 (expected: 1; a batch stage is sequential)");
        assertThatThrownBy(() -> Pipeline.from(List.of(1)).map("a", x -> x).map("a", x -> x))
                .hasMessageContaining("'a' is used twice");
    }

    @Test
    void configsLayerStageByStage() {
        PipelineConfig base = new PipelineConfig(3, null, null, Map.of("a", new StageConfig(4, null, null, null, null, null)));
        PipelineConfig over = new PipelineConfig(null, null, 100L, Map.of("a", new StageConfig(null, 10, null, null, null, null)));
        PipelineConfig merged = base.overriddenBy(over);
        assertThat(merged.sinkCapacity()).isEqualTo(3);
        assertThat(merged.stallTimeoutMillis()).isEqualTo(100L);
        assertThat(merged.stage("a")).isEqualTo(new StageConfig(4, 10, null, null, null, null));
    }
}
