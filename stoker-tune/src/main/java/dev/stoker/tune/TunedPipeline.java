package dev.stoker.tune;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;

/** What the online tuner reads from and changes in the pipeline it tunes: a running {@link Pipeline}, or a model. */
interface TunedPipeline {
    PipelineConfig config();

    boolean endOfStream();

    /** Items delivered to the consumer so far. */
    long delivered();

    /** Changes one stage's (or {@code "sink"}'s) settings; refuses with an exception what it cannot change. */
    void reconfigure(String stage, StageConfig change, String reason);

    static TunedPipeline of(Pipeline<?> pipeline) {
        return new TunedPipeline() {
            @Override
            public PipelineConfig config() { return pipeline.config(); }

            @Override
            public boolean endOfStream() { return pipeline.endOfStream(); }

            @Override
            public long delivered() {
                return pipeline.stats().sink().delivered();
            }

            @Override
            public void reconfigure(String stage, StageConfig change, String reason) {
                pipeline.reconfigure(stage, change, reason);
            }
        };
    }
}
