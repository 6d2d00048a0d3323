package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderOptionsBuilder;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;


/**
 * The memory plan settles every stage as the running pipeline does, sizes the pools the loader makes, and
 * follows a reconfiguration; the child JVM's pools come from the same plan.
 */
class MemoryPlanTest {
    private static final Dataset dataset = DemoFolders.dataset(DemoSpec.small(1, 2, 1.0));

    private static LoaderOptionsBuilder options() {
        return LoaderOptions.builder().clip(4, 2).size(32, 32, dev.stoker.loader.clip.Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC).order(3, true, 1)
                .config(new PipelineConfig(null, null, null, Map.of("convert", StageConfig.EMPTY.withConcurrency(3),
                        "collate", new StageConfig(2, 5, null, null, null, null))));
    }

    @Test
    void thePlanSettlesStagesAsTheRunningPipelineDoes() {
        for (LoaderOptions options : new LoaderOptions[] {options().build(), options().fusedConvert(true).build(),
                options().splitAfter(VideoStage.COLLATE).build()}) {
            try (VideoLoader loader = VideoLoader.open(dataset, options)) {
                PipelineConfig running = loader.pipeline().config();
                MemoryPlan plan = loader.memoryPlan();
                for (String stage : running.stages().keySet()) {
                    String planned = stage.startsWith("child:") ? stage.substring("child:".length()) : stage;
                    assertThat(plan.config().stage(planned).concurrency()).as(stage).isEqualTo(running.stage(stage).concurrency());
                    assertThat(plan.config().stage(planned).queueCapacity()).as(stage).isEqualTo(running.stage(stage).queueCapacity());
                }
                assertThat(plan.config().sinkCapacity()).isEqualTo(running.sinkCapacity());
                assertThat(loader.batchPool().budgetBytes()).isEqualTo(plan.batchPoolBytes());
                loader.iterator().forEachRemaining(b -> b.close());
            }
        }
    }

    @Test
    void thePoolsHoldEveryClipAndBatchTheStagesCanHold() {
        LoaderOptions options = options().build();
        PipelineConfig defaults = VideoLoader.defaultConfig(2);
        MemoryPlan plan = MemoryPlan.of(options, defaults);
        StageConfig decode = plan.config().stage("decode");
        long decoding = (long) (decode.inputOrderWindow() + 3 + 6) * 8;          // decode's window, convert's 3 + 6, 8 clips a video
        long batching = plan.config().stage("batch").queueCapacity() + 2;       // the batch stage's queue and partial batch
        long collating = (5 + 2) * 2 + 4;                                        // collate's queue and workers, in clips
        assertThat(plan.clipsHeld()).isEqualTo(decoding + batching + collating);
        assertThat(plan.clipPoolBytes()).isEqualTo(plan.clipsHeld() * 4 * 32 * 32 * 3);
        assertThat(plan.batchesHeld()).isEqualTo(4 + 2 + 2);                     // sink 4, collators 2, consumer, spare
        assertThat(MemoryPlan.of(options().fusedConvert(true).build(), defaults).clipsHeld())
                .as("fused: no convert stage holds clips").isEqualTo((long) decode.inputOrderWindow() * 8 + batching + collating);
        MemoryPlan split = MemoryPlan.of(options().splitAfter(VideoStage.COLLATE).build(), defaults);
        assertThat(split.clipsHere()).as("collate in the child: no clips here").isZero();
        assertThat(split.childBatchPoolBytes()).isEqualTo((2 + 2) * 2L * 4 * 32 * 32 * 3);
        MemoryPlan wider = plan.with(plan.config().withStage("collate", new StageConfig(4, 9, null, null, null, null)));
        assertThat(wider.batchesHeld()).as("a reconfiguration widens the plan").isEqualTo(4 + 4 + 2);
        assertThat(wider.heldBytes(1000)).isGreaterThan(plan.heldBytes(1000));
        assertThat(options().batchBudget(12345).build()).satisfies(o ->
                assertThat(MemoryPlan.of(o, defaults).batchPoolBytes()).as("a set budget wins").isEqualTo(12345));
    }
}
