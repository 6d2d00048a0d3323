package dev.stoker.tune;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline the online tuner tunes that is only its config: a reconfigure changes the config as it changes a
 * running pipeline's effective config, so that a test's model of the pipeline can measure whatever config it has.
 * It never ends, and delivers its first item at once.
 */
abstract class ConfigOnlyPipeline implements TunedPipeline, Meter {
    final FakeClock clock = new FakeClock();
    /** Every change's reason, as a running pipeline's stats list them. */
    final List<String> reasons = new ArrayList<>();
    PipelineConfig config;
    long delivered;

    ConfigOnlyPipeline(PipelineConfig start) {
        this.config = start;
    }

    @Override
    public PipelineConfig config() { return config; }

    @Override
    public boolean endOfStream() { return false; }

    @Override
    public long delivered() {
        return Math.max(1, delivered);
    }

    @Override
    public void reconfigure(String stage, StageConfig change, String reason) {
        config = stage.equals("sink") ? config.withSinkCapacity(change.queueCapacity())
                : config.withStage(stage, config.stage(stage).overriddenBy(change));
        reasons.add(reason);
    }
}
