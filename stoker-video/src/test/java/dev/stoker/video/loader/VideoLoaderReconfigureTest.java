package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;


/** A VideoLoader reconfigured while it runs (as an autotuner does) delivers exactly what it would have, and its pools follow. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VideoLoaderReconfigureTest {
    private static final Dataset dataset = DemoFolders.dataset(DemoSpec.small(2, 3, 2.0));

    /** Every stage starts at one worker and short queues, as a bad config an autotuner starts from. */
    private static LoaderOptions options() {
        StageConfig one = new StageConfig(1, 1, null, null, null, null);
        return LoaderOptions.builder().order(5, true, 4).batch(3, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1.0)
                .config(new PipelineConfig(1, null, null, Map.of("fetch", one, "demux", one, "decode", one,
                        "convert", one, "collate", one))).build();
    }

    @Test
    void reconfiguredWhileRunningItDeliversTheSameClipsInTheSameOrder() throws Exception {
        List<String> expected;
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            expected = DeliveredClips.of(loader);
        }
        assertThat(expected).hasSize(6 * 2 * 4);
        List<String> got;
        AtomicBoolean stop = new AtomicBoolean();
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            Thread churn = Thread.ofPlatform().name("churn").start(() -> {
                SplittableRandom random = new SplittableRandom(11);
                String[] stages = {"fetch", "demux", "decode", "convert", "collate", "batch", "sink"};
                while (!stop.get()) {
                    String stage = stages[random.nextInt(stages.length)];
                    try {
                        if (stage.equals("sink") || stage.equals("batch") || random.nextBoolean()) {
                            loader.pipeline().reconfigure(stage, StageConfig.EMPTY.withQueueCapacity(1 + random.nextInt(8)), "churn");
                        } else {
                            loader.pipeline().reconfigure(stage, StageConfig.EMPTY.withConcurrency(1 + random.nextInt(4)), "churn");
                        }
                    } catch (IllegalStateException closed) {
                        return;
                    }
                    LockSupport.parkNanos(random.nextLong(1_000_000, 20_000_000));
                }
            });
            got = DeliveredClips.of(loader);
            stop.set(true);
            churn.join();
            assertThat(loader.pipeline().failures()).isEmpty();
            assertThat(loader.pipeline().stats().reconfigurations()).as("changes made while it ran").isNotEmpty();
        }
        assertThat(got).as("the clips, in order, of the loader left alone").isEqualTo(expected);
    }

    @Test
    void theBatchPoolGrowsWithTheSinkAndCollate() {
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            int before = loader.batchPool().maxBuffers();
            assertThat(before).isEqualTo(1 + 1 + 2);   // sink 1, collate 1, the consumer's and one spare
            loader.pipeline().reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(6));
            loader.pipeline().reconfigure("collate", StageConfig.EMPTY.withConcurrency(3));
            assertThat(loader.batchPool().maxBuffers()).isEqualTo(6 + 3 + 2);
            loader.pipeline().reconfigure("sink", StageConfig.EMPTY.withQueueCapacity(2));
            assertThat(loader.batchPool().maxBuffers()).as("never shrinks").isEqualTo(6 + 3 + 2);
            assertThat(DeliveredClips.of(loader)).hasSize(6 * 2 * 4);
        }
    }

    @Test
    void itemBytesByStageCountFilesClipsAndBatches() throws IOException {
        long clip = 16L * 112 * 112 * 3;
        long meanFile = 0;
        for (var e : dataset.entries()) {
            meanFile += Files.size(e.path());
        }
        meanFile /= dataset.size();
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            Map<String, Long> bytes = loader.itemBytesByStage();
            assertThat(bytes).containsEntry("demux", meanFile).containsEntry("decode", meanFile)
                    .containsEntry("convert", 2 * clip).containsEntry("batch", clip).containsEntry("collate", 3 * clip)
                    .containsEntry("sink", 3 * clip);
            assertThat(meanFile).isPositive();
        }
        try (VideoLoader fused = VideoLoader.open(dataset, options().toBuilder().fusedConvert(true).build())) {
            assertThat(fused.itemBytesByStage()).doesNotContainKey("convert");
        }
    }
}
