package dev.stoker.store.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.store.DemoSource;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.SampleInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the shard loader reads ahead is what it then reads: for random segments, the frames each clip's seed draws (a
 * spec built without it would pin and fetch other frames' bytes); for a start's spatial crops, its frames once.
 */
class ClipPlannerReadAheadTest {
    @TempDir
    static Path dest;

    @BeforeAll
    static void ingest() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
    }

    @Test
    void readAheadAsksForTheFramesEachClipReads() throws IOException {
        LoaderOptions options = LoaderOptions.builder().clip(8, 2).order(5, true, 2)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM_SEGMENTS, 1, 1.0).spatialCrops(3).build();
        try (ShardDataset shards = ShardDataset.open(dest)) {
            ClipPlanner planner = new ClipPlanner(shards, options);
            for (int epoch = 0; epoch < 2; epoch++) {
                for (int i = 0; i < shards.size(); i++) {
                    SampleDraw draw = new SampleDraw(i, epoch, i, 0);
                    SampleInfo sample = shards.sample(i);
                    SampleTask task = new SampleTask(sample, draw, 0);
                    double[] starts = planner.starts(sample, epoch);
                    assertThat(starts).hasSize(3);
                    List<ClipSpec> read = new ArrayList<>();
                    for (int clip = 0; clip < starts.length; clip++) {
                        read.add(planner.clip(task, clip, starts[clip]));
                    }
                    assertThat(read).as("a start's crops read its frames").containsOnly(read.getFirst());
                    assertThat(planner.clipsOf(draw)).as("sample %d, epoch %d", i, epoch).containsExactly(read.getFirst());
                    assertThat(read.getFirst()).as("drawn, not the seedless default")
                            .isNotEqualTo(options.clip().at(starts[0]));
                }
            }
        }
    }
}
