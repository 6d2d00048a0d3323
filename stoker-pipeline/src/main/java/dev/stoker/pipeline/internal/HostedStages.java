package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.StageHost;
import dev.stoker.pipeline.StageStats;
import java.util.List;

/**
 * Stages running in a {@link StageHost}, as the rest of the pipeline sees them: a source of their
 * outputs, their stats and failures (merged into the pipeline's), and {@link #close()}.
 */
public interface HostedStages extends AutoCloseable {

    /**
     * The outputs, epoch by epoch, in the epochs of the inputs; {@code null} for an epoch once the stream
     * has ended. Read by one thread (the pipeline's source thread); blocking reads must answer interruption.
     * A {@link PipelineFailedException} thrown from it ends the pipeline with that failure.
     */
    EpochSource<?> outputs();

    /** A snapshot of the hosted stages' stats, named as they should appear in the pipeline's (e.g. {@code child:decode}). */
    List<StageStats> stageStats();

    /** Items the hosted stages failed on (or that the host gave up on), oldest first. */
    List<Failure> failures();

    /** Stops the hosted stages and frees what they hold; idempotent, never throws. */
    @Override
    void close();
}
