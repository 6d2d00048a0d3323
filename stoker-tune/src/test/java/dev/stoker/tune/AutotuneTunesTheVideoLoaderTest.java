package dev.stoker.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.Reconfiguration.Knob;
import dev.stoker.pipeline.Reconfiguration;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.tune.internal.AutotuneBudget;
import dev.stoker.tune.internal.AutotuneChange;
import dev.stoker.tune.internal.AutotuneChange.Outcome;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.DeliveredClips;
import dev.stoker.video.loader.VideoLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;


/**
 * The online autotuner on the real video loader, decoding Kinetics-like videos (the demo generator's): from a bad config
 * (decode 1, demux 4) it changes the running loader within its budget, every change is in the stats and the
 * trace with its reason, and the loader delivers exactly the clips, in the order, of a loader left alone.
 */
@Timeout(300)
class AutotuneTunesTheVideoLoaderTest {
    /** At least this many epochs are compared; more while the tuner has not yet changed anything. */
    private static final int EPOCHS = 30;
    /** How many epochs the tuner gets at most to make its first change (a quiet, fast machine runs 30 in 2 s). */
    private static final int MAX_EPOCHS = 600;
    private static final int MAX_CONCURRENCY = 3;
    private static final int MAX_QUEUE = 16;
    static Dataset dataset;

    /** Six demo videos of 6 s (340x256, H.264 and VP8, one keyframe each: Kinetics-like seeks), two classes. */
    @BeforeAll
    static void videos() {
        dataset = DemoFolders.dataset(DemoSpec.small(2, 3, 6.0));
    }

    /** The bad start: one decoder behind four demuxers. */
    private static LoaderOptions options() {
        return LoaderOptions.builder().clip(8, 2).order(3, true, -1).batch(2, false, BatchLayout.NTHWC)
                .config(new PipelineConfig(null, null, null, Map.of(
                        "decode", StageConfig.EMPTY.withConcurrency(1), "demux", StageConfig.EMPTY.withConcurrency(4)))).build();
    }

    @Test
    void tunesTheRunningLoaderWithinItsBudgetAndDeliversExactlyTheSameClips() throws Exception {
        TraceRecorder trace = TraceRecorder.create();
        List<String> got;
        List<AutotuneChange> changes;
        List<Reconfiguration> recorded;
        PipelineConfig start;
        PipelineConfig end;
        AutotuneBudget budget;
        try (VideoLoader loader = VideoLoader.open(dataset, options(), Opening.defaults().tracedBy(trace))) {
            start = loader.pipeline().config();
            budget = AutotuneBudget.defaults().withMaxConcurrency(MAX_CONCURRENCY).withMaxQueueCapacity(MAX_QUEUE)
                    .withWindow(Duration.ofMillis(250), 2).withMinItems(6);
            // Room for a little more than the start holds: enough to grow, not enough for everything at its maximum.
            budget = budget.withRam(budget.withRam(1, loader.itemBytesByStage()).ramBytes(start) * 3 / 2, loader.itemBytesByStage());
            try (Autotune tuning = Autotune.online(loader.pipeline(), budget)) {
                // Endless epochs, taken until the tuner has acted: how many that takes is the machine's speed, not
                // the test's (a fixed 30 epochs ran out before the first window on a quiet machine).
                int perEpoch = dataset.entries().size();
                got = DeliveredClips.whileCount(loader, n -> n < perEpoch * MAX_EPOCHS && (n < perEpoch * EPOCHS || tuning.changes().isEmpty()));
                tuning.close();
                changes = tuning.changes();
            }
            end = loader.pipeline().config();
            recorded = loader.pipeline().stats().reconfigurations();
            assertThat(loader.pipeline().failures()).isEmpty();
            assertThat(loader.pipeline().stats().stage("decode").concurrency()).isEqualTo(end.stage("decode").concurrency());
        }
        changes.forEach(c -> System.out.println("  " + c));
        System.out.println("start " + start.stages() + " sink " + start.sinkCapacity());
        System.out.println("end   " + end.stages() + " sink " + end.sinkCapacity());

        List<String> expected;
        try (VideoLoader alone = VideoLoader.open(dataset, options())) {
            expected = DeliveredClips.whileCount(alone, n -> n < got.size());
            assertThat(alone.pipeline().failures()).isEmpty();
        }
        assertThat(got).as("the clips, in order, of the loader left alone").hasSizeGreaterThanOrEqualTo(
                dataset.entries().size() * EPOCHS).isEqualTo(expected);
        assertThat(changes).as("changes the tuner made to decode 1 / demux 4").isNotEmpty();

        // Every change the pipeline saw came from the tuner, with the tuner's reason, in the same order; replaying
        // them from the start config gives the end config, and no config on the way broke the budget.
        List<AutotuneChange> applied = changes.stream().filter(c -> c.outcome() != Outcome.KEPT).toList();
        assertThat(recorded).hasSameSizeAs(applied);
        PipelineConfig config = start;
        for (int i = 0; i < recorded.size(); i++) {
            Reconfiguration r = recorded.get(i);
            AutotuneChange c = applied.get(i);
            assertThat(List.of(r.stage(), r.knob(), r.from(), r.to())).isEqualTo(List.of(c.stage(), c.knob(), c.from(), c.to()));
            assertThat(r.reason()).isEqualTo("autotune " + c.outcome() + ": " + c.reason());
            config = r.stage().equals("sink") ? config.withSinkCapacity(r.to())
                    : config.withStage(r.stage(), r.knob() == Knob.CONCURRENCY
                            ? config.stage(r.stage()).withConcurrency(r.to()) : config.stage(r.stage()).withQueueCapacity(r.to()));
            if (r.to() > r.from() && c.outcome() == Outcome.PROBE) {   // a step back restores what was there
                assertThat(r.to()).as("%s within the budget's limits", r.change())
                        .isLessThanOrEqualTo(r.knob() == Knob.CONCURRENCY ? MAX_CONCURRENCY : MAX_QUEUE);
                assertThat(budget.fitsRam(config)).as("%s keeps the estimated RAM within %d bytes (%d)", r.change(),
                        budget.ramBytes(), budget.ramBytes(config)).isTrue();
            }
            assertThat(Set.of("fetch", "demux", "decode", "convert", "batch", "collate", "sink")).contains(r.stage());
        }
        assertThat(config).isEqualTo(end);

        // The trace draws each change on the tuner's thread, named and with its reason.
        List<TraceRecorder.Slice> slices = new ArrayList<>();
        trace.readSlices(0, slices::add);
        List<TraceRecorder.Slice> drawn = slices.stream().filter(s -> s.category().equals("reconfigure")).toList();
        assertThat(drawn).extracting(TraceRecorder.Slice::name).isEqualTo(recorded.stream().map(Reconfiguration::change).toList());
        assertThat(drawn).extracting(TraceRecorder.Slice::detail).isEqualTo(recorded.stream().map(Reconfiguration::reason).toList());
        assertThat(drawn).extracting(TraceRecorder.Slice::threadName).containsOnly("stoker-autotune");
    }

}
